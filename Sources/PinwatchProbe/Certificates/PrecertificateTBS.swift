internal import COpenSSL

/// What a Certificate Transparency log signs for a precertificate (RFC 6962
/// §3.2): its TBSCertificate with the poison extension taken out. A log
/// builds it on submission; a monitor builds it again to check that the
/// precertificate a log hands over is the one it logged.
package enum PrecertificateTBS {
    /// True when `certificate` (a borrowed `X509*`) carries the poison and
    /// no other critical extension OpenSSL does not handle: a certificate
    /// a verifier refuses for being a precertificate, and for nothing else.
    static func isRefusedOnlyForItsPoison(_ certificate: OpaquePointer) -> Bool {
        var poisoned = false
        for index in 0..<max(0, X509_get_ext_count(certificate)) {
            guard let item = X509_get_ext(certificate, index), X509_EXTENSION_get_critical(item) != 0 else { continue }
            if OBJ_obj2nid(X509_EXTENSION_get_object(item)) == NID_ct_precert_poison {
                poisoned = true
            } else if X509_supported_extension(item) == 0 {
                return false
            }
        }
        return poisoned
    }

    /// The re-encoded TBSCertificate of `precertificate` (DER) without its
    /// poison extension; nil for bytes that are not a certificate, carry
    /// trailing bytes, or carry no poison.
    package static func withoutPoison(_ precertificate: [UInt8]) -> [UInt8]? {
        tbs(of: precertificate, without: NID_ct_precert_poison)
    }

    /// What the logs signed for SCTs embedded in `certificate` (DER): its
    /// TBSCertificate without the SCT list extension, as the precertificate
    /// carried it before the CA added them; nil without such an extension.
    package static func withoutEmbeddedSCTs(_ certificate: [UInt8]) -> [UInt8]? {
        tbs(of: certificate, without: NID_ct_precert_scts)
    }

    private static func tbs(of precertificate: [UInt8], without nid: Int32) -> [UInt8]? {
        defer { _ = OpenSSLErrorQueue.drainCodes() }
        guard let decoded = WholeDER.decode(precertificate, with: { d2i_X509(nil, $0, $1) }, free: { X509_free($0) }) else {
            return nil
        }
        defer { X509_free(decoded) }
        let index = X509_get_ext_by_NID(decoded, nid, -1)
        guard index >= 0, let removed = X509_delete_ext(decoded, index) else { return nil }
        X509_EXTENSION_free(removed)
        var out: UnsafeMutablePointer<UInt8>? = nil
        let length = i2d_re_X509_tbs(decoded, &out)
        guard length > 0, let out else { return nil }
        defer { pinwatch_OPENSSL_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }
}
