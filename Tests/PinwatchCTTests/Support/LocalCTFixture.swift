import Foundation
import PinwatchCT
import PinwatchLocalWorld
import PinwatchProbe

/// A local PKI (a root and one intermediate) and a local RFC 6962 log it
/// submits to, with the log's description as a v3 log list gives it.
final class LocalCTFixture {
    let root: CertificateAuthority
    let intermediate: CertificateAuthority
    let log: LocalCTLog

    init(maximumBatch: Int = 64) throws {
        root = try CertificateAuthority.makeRoot(commonName: "CT Test Root")
        intermediate = try root.issueIntermediate(commonName: "CT Test Issuing CA")
        log = try LocalCTLog(roots: [root.certificate], maximumBatch: maximumBatch)
    }

    /// The log as pinwatch reads it from the log list the log publishes.
    func description() throws -> CTLogDescription {
        let list = try CTLogList(json: try log.logList())
        guard let only = list.logs.first, list.logs.count == 1 else { throw CTFormatError("the local list has no single log") }
        return only
    }

    func follower(
        from position: VerifiedLogPosition? = .beginning, timeout: TimeInterval = 10, batchSize: UInt64 = 256
    ) throws -> CTLogFollower {
        var limits = RFC6962Client.Limits()
        limits.timeout = timeout
        limits.batchSize = batchSize
        let description = try description()
        guard case .rfc6962(let url) = description.interface else { throw CTFormatError("the local log is not RFC 6962") }
        return CTLogFollower(log: description, client: RFC6962Client(baseURL: url, limits: limits), position: position)
    }

    /// The same log read through static-ct-api, as its `tiled_logs` entry says.
    func tiledFollower(from position: VerifiedLogPosition? = .beginning, timeout: TimeInterval = 10) throws -> CTLogFollower {
        var limits = RFC6962Client.Limits()
        limits.timeout = timeout
        let list = try CTLogList(json: try log.logList(tiled: true))
        guard let description = list.logs.first, case .staticCTAPI(let submission, let monitoring) = description.interface else {
            throw CTFormatError("the local list has no tiled log")
        }
        let client = StaticCTClient(log: description, submissionURL: submission, monitoringURL: monitoring, limits: limits)
        return CTLogFollower(log: description, client: client, position: position)
    }

    /// Logs a certificate for `names`, issued by `issuer` (the fixture's
    /// intermediate unless given) under `key` (a new one unless given);
    /// returns its DER.
    @discardableResult
    func logCertificate(_ names: [String], under issuer: CertificateAuthority? = nil, key: PrivateKey? = nil) throws -> [UInt8] {
        let issuer = issuer ?? intermediate
        let leaf = try issuer.issueLeaf(commonName: names[0], dnsNames: names, key: key)
        log.add(certificate: leaf.certificate, chain: [issuer.certificate, root.certificate])
        return leaf.certificate.der
    }

    /// Logs a precertificate for `names`, issued by `issuer` (the
    /// fixture's intermediate unless given); returns the precertificate's DER.
    @discardableResult
    func logPrecertificate(_ names: [String], under issuer: CertificateAuthority? = nil) throws -> [UInt8] {
        let issuer = issuer ?? intermediate
        let precertificate = try issuer.issueLeaf(commonName: names[0], dnsNames: names, precertificate: true)
        try log.add(
            precertificate: precertificate.certificate, issuer: issuer.certificate, chain: [issuer.certificate, root.certificate])
        return precertificate.certificate.der
    }
}
