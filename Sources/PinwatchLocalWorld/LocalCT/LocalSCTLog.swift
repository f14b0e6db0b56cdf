internal import COpenSSL
import Foundation
import PinwatchCore
import PinwatchProbe

/// A Certificate Transparency log reduced to what issues SCTs: a P-256 key
/// and an operator's name. It signs SCTs (RFC 6962 §3.2) for certificates
/// (handed over in the TLS extension or a stapled OCSP response) and for
/// precertificates (embedded by the CA), and names itself in a v3 log
/// list. A forger keeps a log's id and operator with a key of its own.
package struct LocalSCTLog: Sendable {
    package let key: PrivateKey
    package let operatorName: String
    package let logID: [UInt8]
    /// The state the log list gives it (`usable`, `retired`, …).
    package let state: String

    package init(operatorName: String, state: String = "usable") throws {
        key = try PrivateKey.ecdsa(.p256)
        logID = SHA256Digest.of(key.subjectPublicKeyInfoDER)
        self.operatorName = operatorName
        self.state = state
    }

    private init(forging log: LocalSCTLog) throws {
        key = try PrivateKey.ecdsa(.p256)
        logID = log.logID
        operatorName = log.operatorName
        state = log.state
    }

    /// The log as the probe checks its SCTs (what `ct: logs:` gives it).
    package var sctLogKey: SCTLogKey {
        SCTLogKey(logID: logID, key: key.subjectPublicKeyInfoDER, operatorName: operatorName, state: state)
    }

    /// Signs with another key under `log`'s id: SCTs a verifier must refuse.
    package static func forger(of log: LocalSCTLog) throws -> LocalSCTLog {
        try LocalSCTLog(forging: log)
    }

    /// An SCT for `certificate` as an x509_entry, in its TLS encoding.
    package func sct(for certificate: X509Certificate, at date: Date = Date()) throws -> [UInt8] {
        try sct(entry: [0, 0] + LocalCTLog.vector24(certificate.der), at: date)
    }

    /// An SCT for a precertificate's TBSCertificate under the issuer's key hash.
    package func sct(precertificateTBS tbs: [UInt8], issuerKeyHash: [UInt8], at date: Date = Date()) throws -> [UInt8] {
        try sct(entry: [0, 1] + issuerKeyHash + LocalCTLog.vector24(tbs), at: date)
    }

    private func sct(entry: [UInt8], at date: Date) throws -> [UInt8] {
        let timestamp = LocalCTLog.integer(UInt64(max(0, date.timeIntervalSince1970 * 1_000).rounded(.down)), width: 8)
        let signature = try key.signSHA256([0, 0] + timestamp + entry + [0, 0])
        return [0] + logID + timestamp + [0, 0] + [4, 3] + LocalCTLog.integer(UInt64(signature.count), width: 2) + signature
    }

    /// A SignedCertificateTimestampList: the TLS extension's body, and the
    /// content of the certificate's and the OCSP response's extension.
    package static func list(_ scts: [[UInt8]]) -> [UInt8] {
        let body = scts.flatMap { LocalCTLog.integer(UInt64($0.count), width: 2) + $0 }
        return LocalCTLog.integer(UInt64(body.count), width: 2) + body
    }

    /// `openssl s_server -serverinfo`'s file: the signed_certificate_timestamp
    /// extension (type 18) carrying `scts`.
    package static func serverInfoPEM(_ scts: [[UInt8]]) -> String {
        let list = list(scts)
        let block = [0, 18] + LocalCTLog.integer(UInt64(list.count), width: 2) + list
        let base64 = Data(block).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN SERVERINFO FOR signed_certificate_timestamp-----\n\(base64)\n"
            + "-----END SERVERINFO FOR signed_certificate_timestamp-----\n"
    }

    /// A Chrome v3 log list of `logs`, one operator per distinct name.
    package static func logList(_ logs: [LocalSCTLog]) throws -> [UInt8] {
        var operators: [String] = []
        for log in logs where !operators.contains(log.operatorName) { operators.append(log.operatorName) }
        let entries: [[String: Any]] = operators.enumerated().map { index, name in
            let described: [[String: Any]] = logs.filter { $0.operatorName == name }.enumerated().map { number, log in
                [
                    "description": "\(name) log \(number)", "log_id": Data(log.logID).base64EncodedString(),
                    "key": Data(log.key.subjectPublicKeyInfoDER).base64EncodedString(),
                    "url": "https://ct\(index).example.test/\(number)/", "mmd": 86_400,
                    "state": [log.state: ["timestamp": "2026-01-01T00:00:00Z"]],
                ]
            }
            return ["name": name, "email": ["ct@example.test"], "logs": described, "tiled_logs": [] as [Any]]
        }
        let list: [String: Any] = ["version": "1.0", "log_list_timestamp": "2026-01-01T00:00:00Z", "operators": entries]
        return try [UInt8](JSONSerialization.data(withJSONObject: list, options: [.sortedKeys]))
    }
}

extension CertificateAuthority {
    /// `leaf` (issued by this authority) again, with SCTs by `logs`
    /// embedded as a CA embeds them: each log signs the TBSCertificate
    /// without the extension, which is then added last and signed.
    package func embeddingSCTs(in leaf: IssuedCertificate, by logs: [LocalSCTLog], at date: Date = Date()) throws
        -> IssuedCertificate
    {
        let copy: OpaquePointer? = leaf.certificate.withPointer { X509_dup($0) }
        guard let copy else { throw LocalPKIError.issuing("cannot copy the leaf") }
        let certificate = X509Certificate(takingOwnership: copy)
        var out: UnsafeMutablePointer<UInt8>?
        let length = i2d_re_X509_tbs(copy, &out)
        guard length > 0, let out else { throw LocalPKIError.issuing("cannot encode the leaf's TBSCertificate") }
        let tbs = Array(UnsafeBufferPointer(start: out, count: Int(length)))
        pinwatch_OPENSSL_free(out)
        let issuerKeyHash = self.certificate.facts.spkiSHA256
        let list = LocalSCTLog.list(try logs.map { try $0.sct(precertificateTBS: tbs, issuerKeyHash: issuerKeyHash, at: date) })
        let made = try sctListExtension(nid: NID_ct_precert_scts, list: list)
        defer { X509_EXTENSION_free(made) }
        guard X509_add_ext(copy, made, -1) == 1, X509_sign(copy, key.pointer, EVP_sha256()) > 0 else {
            throw LocalPKIError.issuing("cannot sign the leaf with its SCTs: \(OpenSSLErrorQueue.drain())")
        }
        return IssuedCertificate(certificate: certificate, key: leaf.key)
    }

    /// A good OCSP response for `leaf` (issued by this authority), signed
    /// by it, whose single response carries `scts` in RFC 6962's extension
    /// (1.3.6.1.4.1.11129.2.4.5): what a server staples. DER.
    package func stapledOCSPResponse(for leaf: X509Certificate, carrying scts: [[UInt8]], at date: Date = Date()) throws -> [UInt8] {
        let identifier: OpaquePointer? = leaf.withPointer { leaf in certificate.withPointer { OCSP_cert_to_id(nil, leaf, $0) } }
        guard let identifier else { throw LocalPKIError.issuing("cannot make the leaf's OCSP identifier") }
        defer { OCSP_CERTID_free(identifier) }
        guard let basic = OCSP_BASICRESP_new() else { throw LocalPKIError.issuing("cannot allocate an OCSP response") }
        defer { OCSP_BASICRESP_free(basic) }
        let thisUpdate = ASN1_TIME_set(nil, time_t(date.timeIntervalSince1970 - 60))
        let nextUpdate = ASN1_TIME_set(nil, time_t(date.timeIntervalSince1970 + 7 * 86_400))
        defer {
            ASN1_TIME_free(thisUpdate)
            ASN1_TIME_free(nextUpdate)
        }
        guard let single = OCSP_basic_add1_status(basic, identifier, V_OCSP_CERTSTATUS_GOOD, 0, nil, thisUpdate, nextUpdate) else {
            throw LocalPKIError.issuing("cannot add the leaf's status: \(OpenSSLErrorQueue.drain())")
        }
        let extensionValue = try sctListExtension(nid: NID_ct_cert_scts, list: LocalSCTLog.list(scts))
        defer { X509_EXTENSION_free(extensionValue) }
        // Signed last: a signature made before the extension was added
        // would not cover it, and the response would not verify.
        guard OCSP_SINGLERESP_add_ext(single, extensionValue, -1) == 1,
            certificate.withPointer({ OCSP_basic_sign(basic, $0, key.pointer, EVP_sha256(), nil, 0) }) == 1,
            let response = OCSP_response_create(Int32(OCSP_RESPONSE_STATUS_SUCCESSFUL), basic)
        else { throw LocalPKIError.issuing("cannot sign the OCSP response: \(OpenSSLErrorQueue.drain())") }
        defer { OCSP_RESPONSE_free(response) }
        var out: UnsafeMutablePointer<UInt8>?
        let length = i2d_OCSP_RESPONSE(response, &out)
        guard length > 0, let out else { throw LocalPKIError.issuing("cannot encode the OCSP response") }
        defer { pinwatch_OPENSSL_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }

    /// The extension's value is a DER OCTET STRING wrapping the TLS list.
    private func sctListExtension(nid: Int32, list: [UInt8]) throws -> OpaquePointer {
        let wrapped = [0x04] + derLength(list.count) + list
        guard let octets = ASN1_OCTET_STRING_new() else { throw LocalPKIError.issuing("cannot allocate an OCTET STRING") }
        defer { ASN1_OCTET_STRING_free(octets) }
        guard ASN1_OCTET_STRING_set(octets, wrapped, Int32(wrapped.count)) == 1,
            let made = X509_EXTENSION_create_by_NID(nil, nid, 0, octets)
        else { throw LocalPKIError.issuing("cannot make the SCT list extension") }
        return made
    }

    private func derLength(_ count: Int) -> [UInt8] {
        if count < 0x80 { return [UInt8(count)] }
        if count < 0x100 { return [0x81, UInt8(count)] }
        return [0x82, UInt8(truncatingIfNeeded: count >> 8), UInt8(truncatingIfNeeded: count)]
    }
}
