internal import COpenSSL

/// A public key decoded from a DER SubjectPublicKeyInfo, to check SHA-256
/// signatures with (`SignedListSignature`): EC or RSA only. One owner of
/// the `EVP_PKEY`.
package final class VerifyingKey {
    let pointer: OpaquePointer

    /// nil for bytes that are not one SPKI (trailing bytes included), or a
    /// key of another kind.
    package init?(subjectPublicKeyInfo spki: [UInt8]) {
        guard !spki.isEmpty, spki.count <= 4_096 else { return nil }
        defer { _ = OpenSSLErrorQueue.drainCodes() }
        guard let key = WholeDER.decode(spki, with: { d2i_PUBKEY(nil, $0, $1) }, free: { EVP_PKEY_free($0) }) else { return nil }
        let kind = EVP_PKEY_get_base_id(key)
        guard kind == EVP_PKEY_EC || kind == EVP_PKEY_RSA else {
            EVP_PKEY_free(key)
            return nil
        }
        pointer = key
    }

    deinit {
        EVP_PKEY_free(pointer)
    }
}
