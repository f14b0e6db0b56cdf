let host = "api.example.com"
let config: [String: Any] = [kTSKPinnedDomains: [host: [kTSKIncludeSubdomains: NSNumber(value: true), kTSKExpirationDate: "2027-01-01",
    kTSKPublicKeyHashes: ["AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", Pins.backup, "\(x)"]], "b.example.com": [:], [[["x"]]]: 1 + 2]]
