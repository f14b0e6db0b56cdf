internal import COpenSSL

/// ECDSA P-256 with SHA-256, as a signed dynamic pin list is signed, and
/// SHA-256 signatures under any key OpenSSL reads from a SubjectPublicKeyInfo,
/// as Certificate Transparency logs sign their tree heads and checkpoints.
package enum SignedListSignature {
    /// DER SubjectPublicKeyInfo prefix of an uncompressed P-256 point
    /// (id-ecPublicKey, prime256v1, BIT STRING of 66 bytes): the app's key
    /// is configured as the bare point, OpenSSL reads a whole SPKI.
    private static let p256SPKIPrefix: [UInt8] = [
        0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01, 0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D,
        0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
    ]

    /// True only for a valid signature by `publicKey` (65-byte uncompressed
    /// point) over `message`; any malformed input is simply false.
    package static func verify(message: [UInt8], signature: [UInt8], publicKey: [UInt8]) -> Bool {
        guard publicKey.count == 65, publicKey[0] == 0x04 else { return false }
        return verify(message: message, signature: signature, subjectPublicKeyInfo: p256SPKIPrefix + publicKey)
    }

    /// True only for a valid SHA-256 signature (DER ECDSA, or RSA PKCS#1
    /// v1.5) by the key of `subjectPublicKeyInfo` (DER) over `message`; any
    /// malformed input, a key of another kind or trailing bytes after the
    /// SPKI is simply false.
    package static func verify(message: [UInt8], signature: [UInt8], subjectPublicKeyInfo spki: [UInt8]) -> Bool {
        guard let key = VerifyingKey(subjectPublicKeyInfo: spki) else { return false }
        return verify(message: message, signature: signature, key: key)
    }

    /// The same with a key already decoded (`VerifyingKeyCache`).
    package static func verify(message: [UInt8], signature: [UInt8], key: VerifyingKey) -> Bool {
        guard !signature.isEmpty, signature.count <= 1_024 else { return false }
        defer { _ = OpenSSLErrorQueue.drainCodes() }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key.pointer) == 1 else { return false }
        return EVP_DigestVerify(context, signature, signature.count, message, message.count) == 1
    }
}
