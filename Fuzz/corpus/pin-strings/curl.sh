curl --pinnedpubkey 'sha256//AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE=;sha256//AgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgI=' https://user@api.example.com:8443/health
curl --pinnedpubkey /k.pem https://x/
