internal import COpenSSL
import PinwatchCore

/// What a handshake limited to one signature family offers, in OpenSSL's
/// words, and how a server's refusal of it reads.
extension KeyTypeOffer {
    /// TLS 1.3 picks the certificate by `signature_algorithms` alone (and
    /// TLS 1.2 by it along with the suite), so this list decides which of
    /// a dual-certificate server's chains comes back. Only the leaf's
    /// proof is limited: without a `signature_algorithms_cert` extension
    /// the chain above may be signed by any family, as real chains are.
    var signatureAlgorithms: String {
        switch self {
        case .ecdsa:
            return "ecdsa_secp256r1_sha256:ecdsa_secp384r1_sha384:ecdsa_secp521r1_sha512"
        case .rsa:
            return "rsa_pss_rsae_sha256:rsa_pss_rsae_sha384:rsa_pss_rsae_sha512"
                + ":rsa_pss_pss_sha256:rsa_pss_pss_sha384:rsa_pss_pss_sha512"
                + ":rsa_pkcs1_sha256:rsa_pkcs1_sha384:rsa_pkcs1_sha512"
        }
    }

    /// TLS 1.2's suites name the certificate's key type; the default list
    /// less every other authentication (TLS 1.3's suites are left as they are).
    var tls12CipherList: String {
        switch self {
        case .ecdsa: return "DEFAULT:!aRSA:!aDSS:!PSK:!SRP"
        case .rsa: return "DEFAULT:!aECDSA:!aDSS:!PSK:!SRP"
        }
    }

    /// The family's name in the probe's messages.
    var signatureFamily: String {
        switch self {
        case .ecdsa: return "ECDSA"
        case .rsa: return "RSA"
        }
    }

    /// The server's answers that mean "no certificate of this type here":
    /// it aborts the hello, or it ignores the offer and proves a key of
    /// another type, which the client then refuses.
    private static let refusalReasons: Set<Int32> = [
        SSL_R_SSLV3_ALERT_HANDSHAKE_FAILURE, SSL_R_TLSV1_ALERT_INSUFFICIENT_SECURITY, SSL_R_NO_SUITABLE_SIGNATURE_ALGORITHM,
    ]
    private static let otherTypeReasons: Set<Int32> = [SSL_R_WRONG_SIGNATURE_TYPE, SSL_R_WRONG_CERTIFICATE_TYPE]

    /// The failure's words when the handshake broke on this offer; nil when
    /// the reasons say nothing about the key type.
    func refusal(reasons: [Int32], detail: String) -> String? {
        let name = signatureFamily
        if reasons.contains(where: Self.refusalReasons.contains) {
            return "the server refused a handshake offering only \(name) signatures: it seems to hold no \(name) certificate (\(detail))"
        }
        if reasons.contains(where: Self.otherTypeReasons.contains) {
            return "the server has no \(name) certificate: offered only \(name) signatures, "
                + "it answered with a key of another type (\(detail))"
        }
        return nil
    }
}
