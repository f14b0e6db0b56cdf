curl --pinnedpubkey sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA= https://localhost:%PORT/ `https://%HOST%:1/`
curl --pinnedpubkey "sha256//x" https://[::1:$P/
