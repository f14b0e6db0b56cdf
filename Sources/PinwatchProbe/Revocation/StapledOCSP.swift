internal import COpenSSL
import Foundation
import PinwatchCore

/// The OCSP response a server stapled to its handshake, read and checked
/// against the chain and the probe's trust store. pinwatch never asks a
/// responder itself: the staple is what the server's clients see too.
enum StapledOCSP {
    /// A response is refused beyond this (real ones are a few kilobytes).
    static let maximumLength = 64 * 1_024

    /// nil when the server stapled nothing.
    static func finding(in ssl: OpaquePointer, chain: [X509Certificate], now: Date) -> RevocationFinding? {
        var response: UnsafePointer<UInt8>?
        let length = pinwatch_SSL_get_tlsext_status_ocsp_resp(ssl, &response)
        guard length > 0, let response else { return nil }
        let outcome: RevocationFinding.Outcome
        if length > maximumLength {
            outcome = .unavailable("the response is \(length) bytes (more than \(maximumLength) is refused)")
        } else if chain.count < 2 {
            outcome = .unavailable("the chain has no issuer to check the response against")
        } else {
            let store = SSL_CTX_get_cert_store(SSL_get_SSL_CTX(ssl))
            outcome = judge(
                UnsafeBufferPointer(start: response, count: length), leaf: chain[0], issuer: chain[1],
                peerChain: SSL_get_peer_cert_chain(ssl), store: store, now: now)
        }
        _ = OpenSSLErrorQueue.drainCodes()
        return RevocationFinding(level: 0, source: .stapledOCSP, outcome: outcome)
    }

    static func judge(
        _ bytes: UnsafeBufferPointer<UInt8>, leaf: X509Certificate, issuer: X509Certificate, peerChain: OpaquePointer?,
        store: OpaquePointer?, now: Date
    ) -> RevocationFinding.Outcome {
        var cursor: UnsafePointer<UInt8>? = bytes.baseAddress
        guard let response = d2i_OCSP_RESPONSE(nil, &cursor, bytes.count) else {
            return .unavailable("the stapled bytes are not an OCSP response")
        }
        defer { OCSP_RESPONSE_free(response) }
        let status = OCSP_response_status(response)
        guard status == OCSP_RESPONSE_STATUS_SUCCESSFUL else {
            return .unavailable("the responder answered \(String(cString: OCSP_response_status_str(Int(status))))")
        }
        guard let basic = OCSP_response_get1_basic(response) else { return .unavailable("the response has no answer") }
        defer { OCSP_BASICRESP_free(basic) }
        guard OCSP_basic_verify(basic, peerChain, store, 0) == 1 else {
            return .unavailable("its signature does not verify against the chain")
        }
        let identifier: OpaquePointer? = leaf.withPointer { leaf in issuer.withPointer { OCSP_cert_to_id(nil, leaf, $0) } }
        guard let identifier else { return .unavailable("the leaf's OCSP identifier could not be made") }
        defer { OCSP_CERTID_free(identifier) }
        var certificateStatus: Int32 = -1
        var reason: Int32 = -1
        var revokedAt: UnsafeMutablePointer<ASN1_GENERALIZEDTIME>?
        var thisUpdate: UnsafeMutablePointer<ASN1_GENERALIZEDTIME>?
        var nextUpdate: UnsafeMutablePointer<ASN1_GENERALIZEDTIME>?
        guard
            OCSP_resp_find_status(basic, identifier, &certificateStatus, &reason, &revokedAt, &thisUpdate, &nextUpdate) == 1
        else {
            return .unavailable("the response says nothing of the leaf")
        }
        switch certificateStatus {
        case V_OCSP_CERTSTATUS_REVOKED:
            let date = ASN1TimeConversion.date(UnsafePointer(revokedAt))
            return .revoked(reason: reason >= 0 ? RevocationFinding.reasonName(code: Int(reason)) : nil, date: date)
        case V_OCSP_CERTSTATUS_GOOD:
            if let nextUpdate {
                let due = ASN1TimeConversion.date(UnsafePointer(nextUpdate))
                if due < now { return .stale(nextUpdate: due) }
            }
            return .good
        default:
            return .unavailable("the responder does not know the leaf")
        }
    }
}
