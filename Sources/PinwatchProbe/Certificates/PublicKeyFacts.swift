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
    static func spkiDigest(of x509: OpaquePointer, sha1: Bool = false) -> [UInt8] {
        guard let publicKey = X509_get_X509_PUBKEY(x509) else { return [] }
        return spkiDigest(ofPublicKey: publicKey, sha1: sha1)
    }

    /// The same for a bare `X509_PUBKEY` (a CSR's, a PUBLIC KEY file's).
    static func spkiDigest(ofPublicKey publicKey: OpaquePointer, sha1: Bool = false) -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>? = nil
        let length = i2d_X509_PUBKEY(publicKey, &out)
        guard length > 0, let out else {
            _ = OpenSSLErrorQueue.drainCodes()
            return []
        }
        defer { pinwatch_OPENSSL_free(out) }
        return SHA256Digest.of(UnsafeRawBufferPointer(start: out, count: Int(length)), sha1: sha1)
    }

    /// SHA-256 of the key as iOS's `SecKeyCopyExternalRepresentation`
    /// returns it, which hand-written pinning managers hash (DESIGN §3): the
    /// BIT STRING content of the SPKI (PKCS#1 for RSA, the raw key for
    /// Ed25519/Ed448), except that an EC point is always the uncompressed
    /// `04‖X‖Y`, whatever form the certificate carries.
    static func rawKeyDigest(of x509: OpaquePointer) -> [UInt8] {
        guard let publicKey = X509_get_X509_PUBKEY(x509) else { return [] }
        return rawKeyDigest(ofPublicKey: publicKey, key: X509_get0_pubkey(x509))
    }

    static func rawKeyDigest(ofPublicKey publicKey: OpaquePointer, key: OpaquePointer?) -> [UInt8] {
        var keyBytes: UnsafePointer<UInt8>? = nil
        var keyLength: Int32 = 0
        guard X509_PUBKEY_get0_param(nil, &keyBytes, &keyLength, nil, publicKey) == 1,
            let keyBytes, keyLength > 0
        else {
            _ = OpenSSLErrorQueue.drainCodes()
            return []
        }
        let raw = UnsafeBufferPointer(start: keyBytes, count: Int(keyLength))
        let isCompressedPoint = raw[0] == 0x02 || raw[0] == 0x03
        if isCompressedPoint, let key, EVP_PKEY_get_base_id(key) == EVP_PKEY_EC,
            let uncompressed = uncompressedPoint(raw, of: key)
        {
            return SHA256Digest.of(uncompressed)
        }
        return SHA256Digest.of(UnsafeRawBufferPointer(raw))
    }

    /// The point `compressed` of `key`'s curve as `04‖X‖Y`; nil when the
    /// curve is unknown to OpenSSL or the point is not on it.
    private static func uncompressedPoint(_ compressed: UnsafeBufferPointer<UInt8>, of key: OpaquePointer) -> [UInt8]? {
        var nameBuffer = [CChar](repeating: 0, count: 80)
        var nameLength = 0
        guard EVP_PKEY_get_group_name(key, &nameBuffer, nameBuffer.count, &nameLength) == 1,
            case let nid = OBJ_sn2nid(nameBuffer), nid != NID_undef,
            let group = EC_GROUP_new_by_curve_name(nid)
        else {
            _ = OpenSSLErrorQueue.drainCodes()
            return nil
        }
        defer { EC_GROUP_free(group) }
        guard let point = EC_POINT_new(group) else { return nil }
        defer { EC_POINT_free(point) }
        guard EC_POINT_oct2point(group, point, compressed.baseAddress, compressed.count, nil) == 1 else {
            _ = OpenSSLErrorQueue.drainCodes()
            return nil
        }
        let length = EC_POINT_point2oct(group, point, POINT_CONVERSION_UNCOMPRESSED, nil, 0, nil)
        guard length > 0 else { return nil }
        var out = [UInt8](repeating: 0, count: length)
        guard EC_POINT_point2oct(group, point, POINT_CONVERSION_UNCOMPRESSED, &out, length, nil) == length else {
            _ = OpenSSLErrorQueue.drainCodes()
            return nil
        }
        return out
    }
}
