internal import COpenSSL
import PinwatchCore

/// Turns a failed `SSL_connect` into DESIGN's error kind and one line of
/// text; no OpenSSL code number leaves this file.
enum TLSFailureText {
    /// Reasons OpenSSL gives when the first bytes are not a TLS record:
    /// what a plaintext (HTTP, SMTP banner…) peer produces.
    private static let plaintextReasons: Set<Int32> = [
        SSL_R_WRONG_VERSION_NUMBER, SSL_R_PACKET_LENGTH_TOO_LONG, SSL_R_HTTP_REQUEST,
        SSL_R_HTTPS_PROXY_REQUEST, SSL_R_UNKNOWN_PROTOCOL, SSL_R_RECORD_LENGTH_MISMATCH,
    ]

    /// OpenSSL only sees memory BIOs: socket errors are reported by the
    /// probe itself, so a bare SYSCALL error here is an end of input.
    /// With an `offer`, a refusal that points at the key type says so.
    static func handshakeFailure(sslError: Int32, offer: KeyTypeOffer? = nil) -> String {
        let codes = OpenSSLErrorQueue.drainCodes()
        let reasons = codes.map { ERR_GET_REASON($0) }
        if reasons.contains(where: plaintextReasons.contains) {
            return "not a TLS server (got plaintext)"
        }
        if reasons.contains(SSL_R_UNEXPECTED_EOF_WHILE_READING)
            || (sslError == SSL_ERROR_SYSCALL && codes.isEmpty)
            || sslError == SSL_ERROR_ZERO_RETURN
        {
            return "connection closed by the server during the TLS handshake"
        }
        if reasons.contains(SSL_R_EXCESSIVE_MESSAGE_SIZE) {
            // Any handshake message can be too large (a ServerHello's limit is
            // far lower); only the certificate list's is ours to state.
            return "TLS handshake failed: a handshake message from the server exceeds its size limit "
                + "(\(TLSContext.maximumCertificateListBytes / 1024) KiB for the certificate list)"
        }
        let detail = OpenSSLErrorQueue.text(of: codes)
        if let offer, let refusal = offer.refusal(reasons: reasons, detail: detail) {
            return refusal
        }
        return "TLS handshake failed: " + detail
    }
}
