/// A key read from a certificate request or a PUBLIC KEY file: the pins a
/// backup key will have once a certificate carries it.
public struct PublicKeyPins: Hashable, Sendable {
    /// `certificate request` or `public key`.
    public var source: String
    /// A request's subject; nil for a bare key.
    public var subject: String?
    public var keyDescription: String
    public var spkiSHA256: [UInt8]
    public var keySHA256: [UInt8]

    public init(source: String, subject: String?, keyDescription: String, spkiSHA256: [UInt8], keySHA256: [UInt8]) {
        self.source = source
        self.subject = subject
        self.keyDescription = keyDescription
        self.spkiSHA256 = spkiSHA256
        self.keySHA256 = keySHA256
    }

    /// The forms a key has (no `cert:`: there is no certificate yet).
    public var pinForms: [String] {
        [PinText.sha256(spkiSHA256), "spki:" + PinText.hex(spkiSHA256), "key:" + PinText.base64(keySHA256)]
    }
}
