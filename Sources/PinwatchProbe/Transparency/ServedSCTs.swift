internal import COpenSSL
import Foundation
import PinwatchCore

/// The SCTs a server delivered for its leaf, each checked with its log's
/// key (RFC 6962 §3.2). OpenSSL gathers them from the three places (the
/// leaf's extension, the TLS extension, the stapled OCSP response); the
/// signatures are checked here, through `SignedListSignature`, since
/// OpenSSL's log store can only be loaded from a file of its own format.
enum ServedSCTs {
    /// More than any real leaf carries; the rest are not looked at.
    static let maximumCount = 32

    /// Asks for SCTs in the handshake (the TLS extension and a stapled
    /// OCSP response). Permissive: OpenSSL never fails a handshake over
    /// them; `observed` judges afterwards.
    static func request(on ssl: OpaquePointer) {
        _ = SSL_enable_ct(ssl, Int32(SSL_CT_VALIDATION_PERMISSIVE))
        _ = OpenSSLErrorQueue.drainCodes()
    }

    /// `chain`: the leaf first, then its issuer (whose key an embedded SCT
    /// names), as the verifier built it. `keys`: the logs' keys decoded on
    /// an earlier probe of the same loop.
    static func observed(in ssl: OpaquePointer, chain: [X509Certificate], logs: SCTLogKeys, keys: VerifyingKeyCache) -> [ObservedSCT] {
        defer { _ = OpenSSLErrorQueue.drainCodes() }
        guard let leaf = chain.first, let stack = SSL_get0_peer_scts(ssl) else { return [] }
        let count = min(Int(pinwatch_sk_SCT_num(stack)), maximumCount)
        guard count > 0 else { return [] }
        let leafDER = leaf.der
        // Built on the first embedded SCT, for all of them.
        var embeddedEntry: [UInt8]?? = nil
        var observed: [ObservedSCT] = []
        for index in 0..<count {
            guard let sct = pinwatch_sk_SCT_value(stack, Int32(index)), SCT_get_version(sct) == SCT_VERSION_V1 else { continue }
            let delivery: SCTDelivery
            switch SCT_get_source(sct) {
            case SCT_SOURCE_X509V3_EXTENSION: delivery = .embedded
            case SCT_SOURCE_TLS_EXTENSION: delivery = .tlsExtension
            case SCT_SOURCE_OCSP_STAPLED_RESPONSE: delivery = .ocsp
            default: continue
            }
            let fields = Fields(sct)
            var seen = ObservedSCT(
                logID: fields.logID, delivery: delivery,
                timestamp: Date(timeIntervalSince1970: TimeInterval(fields.timestamp) / 1_000), check: .unknownLog)
            guard let log = logs[fields.logID] else {
                observed.append(seen)
                continue
            }
            seen.logOperator = log.operatorName
            seen.logState = log.state
            let entry: [UInt8]?
            if delivery == .embedded {
                if embeddedEntry == nil { embeddedEntry = .some(precertEntry(leafDER: leafDER, chain: chain)) }
                entry = embeddedEntry ?? nil
            } else {
                entry = [0, 0] + vector24(leafDER)
            }
            let signed = entry.map { signedData(fields, entry: $0) }
            var valid = false
            if fields.signatureIsSHA256, let signed, let key = keys.key(subjectPublicKeyInfo: log.key) {
                valid = SignedListSignature.verify(message: signed, signature: fields.signature, key: key)
            }
            seen.check = valid ? .valid : .badSignature
            observed.append(seen)
        }
        return observed
    }

    /// What one SCT carries, copied out of OpenSSL's structure.
    private struct Fields {
        var logID: [UInt8]
        var timestamp: UInt64
        var extensions: [UInt8]
        var signature: [UInt8]
        var signatureIsSHA256: Bool

        init(_ sct: OpaquePointer) {
            var pointer: UnsafeMutablePointer<UInt8>?
            let idLength = SCT_get0_log_id(sct, &pointer)
            logID = pointer.map { Array(UnsafeBufferPointer(start: $0, count: idLength)) } ?? []
            pointer = nil
            let extensionsLength = SCT_get0_extensions(sct, &pointer)
            extensions = pointer.map { Array(UnsafeBufferPointer(start: $0, count: extensionsLength)) } ?? []
            pointer = nil
            let signatureLength = SCT_get0_signature(sct, &pointer)
            signature = pointer.map { Array(UnsafeBufferPointer(start: $0, count: signatureLength)) } ?? []
            timestamp = SCT_get_timestamp(sct)
            let nid = SCT_get_signature_nid(sct)
            signatureIsSHA256 = nid == NID_ecdsa_with_SHA256 || nid == NID_sha256WithRSAEncryption
        }
    }

    /// RFC 6962 §3.2's digitally-signed struct: version v1, signature type
    /// certificate_timestamp, the timestamp, the entry, the extensions.
    private static func signedData(_ fields: Fields, entry: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = [0, 0]
        bytes += (0..<8).reversed().map { UInt8(truncatingIfNeeded: fields.timestamp >> (UInt64($0) * 8)) }
        bytes += entry
        bytes += [UInt8(truncatingIfNeeded: fields.extensions.count >> 8), UInt8(truncatingIfNeeded: fields.extensions.count)]
        return bytes + fields.extensions
    }

    /// `precert_entry`: the issuer's key hash and the TBSCertificate. The
    /// hash is of the SPKI as the issuer's certificate carries it, not of
    /// the issuer's whole facts.
    private static func precertEntry(leafDER: [UInt8], chain: [X509Certificate]) -> [UInt8]? {
        guard chain.count > 1, let tbs = PrecertificateTBS.withoutEmbeddedSCTs(leafDER) else { return nil }
        return [0, 1] + chain[1].withPointer { PublicKeyFacts.spkiDigest(of: $0) } + vector24(tbs)
    }

    private static func vector24(_ bytes: [UInt8]) -> [UInt8] {
        let count = bytes.count
        return [UInt8(truncatingIfNeeded: count >> 16), UInt8(truncatingIfNeeded: count >> 8), UInt8(truncatingIfNeeded: count)] + bytes
    }
}
