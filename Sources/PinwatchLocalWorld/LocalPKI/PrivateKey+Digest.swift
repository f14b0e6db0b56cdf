import PinwatchProbe

extension PrivateKey {
    /// SHA-256 of the public half's SubjectPublicKeyInfo: the `sha256/` pin
    /// of every certificate that will ever carry this key.
    package var subjectPublicKeyInfoSHA256: [UInt8] {
        SHA256Digest.of(subjectPublicKeyInfoDER)
    }
}
