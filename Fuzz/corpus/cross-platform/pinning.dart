HttpCertificatePinning.check(serverURL: 'https://api.example.com/x', allowedSHAFingerprints: ['AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB:AB', "zz"]);
CertificatePinningInterceptor(allowedSHAFingerprints: [k]);
