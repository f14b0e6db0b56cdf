const K = 'QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUE=';
initializeSslPinning({ 'a.example': { includeSubdomains: true, publicKeyHashes: [K, `QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUE=`, f()] }, b: 7, 'c.example': {publicKeyHashes: ['x'
