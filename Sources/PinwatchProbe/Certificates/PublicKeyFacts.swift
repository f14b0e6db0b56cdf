internal import COpenSSL

/// The key description and the two key digests pins are compared with.
enum PublicKeyFacts {
    /// `ECDSA P-256`, `RSA 2048`, `Ed25519`: the words an ops user knows.
    static func description(of key: OpaquePointer?) -> String {
        guard let key else { return "unknown" }
        let bits = EVP_PKEY_get_bits(key)
        switch EVP_PKEY_get_base_id(key) {
        case EVP_PKEY_RSA, EVP_PKEY_RSA_PSS:
            return "RSA \(bits)"
        case EVP_PKEY_EC:
            return "ECDSA \(curveName(of: key) ?? "\(bits)-bit")"
        case EVP_PKEY_ED25519:
            return "Ed25519"
        case EVP_PKEY_ED448:
            return "Ed448"
        case EVP_PKEY_DSA:
            return "DSA \(bits)"
        default:
            return "unknown \(bits)-bit"
        }
    }

    /// NIST names (`P-256`) where the curve has one, else OpenSSL's group name.
    private static func curveName(of key: OpaquePointer) -> String? {
        var buffer = [CChar](repeating: 0, count: 80)
        var length = 0
        guard EVP_PKEY_get_group_name(key, &buffer, buffer.count, &length) == 1 else {
            _ = OpenSSLErrorQueue.drainCodes()
            return nil
        }
        let groupName = String(cString: buffer)
        let nid = OBJ_sn2nid(groupName)
        if nid != NID_undef, let nist = EC_curve_nid2nist(nid) {
            return String(cString: nist)
        }
        return groupName
    }

    /// SHA-256 of the DER SubjectPublicKeyInfo: RFC 7469's pin-sha256.
    static func spkiDigest(of x509: OpaquePointer) -> [UInt8] {
        guard let publicKey = X509_get_X509_PUBKEY(x509) else { return [] }
        var out: UnsafeMutablePointer<UInt8>? = nil
        let length = i2d_X509_PUBKEY(publicKey, &out)
        guard length > 0, let out else {
            _ = OpenSSLErrorQueue.drainCodes()
            return []
        }
        defer { pinwatch_OPENSSL_free(out) }
        return SHA256Digest.of(UnsafeRawBufferPointer(start: out, count: Int(length)))
    }

    /// SHA-256 of the BIT STRING content of the SPKI, which is what iOS's
    /// `SecKeyCopyExternalRepresentation` returns and hand-written pinning
    /// managers hash.
    static func rawKeyDigest(of x509: OpaquePointer) -> [UInt8] {
        guard let publicKey = X509_get_X509_PUBKEY(x509) else { return [] }
        var keyBytes: UnsafePointer<UInt8>? = nil
        var keyLength: Int32 = 0
        guard X509_PUBKEY_get0_param(nil, &keyBytes, &keyLength, nil, publicKey) == 1,
              let keyBytes, keyLength > 0
        else {
            _ = OpenSSLErrorQueue.drainCodes()
            return []
        }
        return SHA256Digest.of(UnsafeRawBufferPointer(start: keyBytes, count: Int(keyLength)))
    }
}
