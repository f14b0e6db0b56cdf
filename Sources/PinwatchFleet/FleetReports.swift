import Foundation
import PinwatchCore

extension FleetHost {
    /// The row as the local dashboard's value: the host (with its vantage),
    /// the chain the series describe, and the verdict as `serve` decided it.
    public var config: HostConfig {
        var config = HostConfig(host: host, port: port, serverName: sni, connectAddress: address)
        config.vantage = vantage
        return config
    }

    /// Facts the series do not carry (issuer, key type, digests other than
    /// the SPKI pin, start of validity) are left empty: the detail view
    /// shows what a remote instance exported, nothing invented.
    public func report(now: Date) -> HostReport {
        let certificates = levels.map { level in
            let notAfter = level.notAfter ?? .distantFuture
            let facts = CertificateFacts(
                subject: level.subject, issuer: "", notBefore: .distantPast, notAfter: notAfter, keyDescription: "",
                spkiSHA256: level.spkiSHA256, keySHA256: [], certSHA256: [], isCA: level.role != .leaf,
                isSelfSigned: level.role == .root)
            return ChainCertificate(facts: facts, fromServer: level.role != .root)
        }
        let result: ProbeResult =
            failure.map { kind in .failed(ProbeFailure(kind: kind, message: reason), elapsed: 0) }
            ?? ProbeResult(chain: certificates, sentCount: certificates.count, trusted: true, finishedAt: now)
        let levelReports = zip(levels, certificates).map { level, certificate in
            let matched = level.pinMatches == true && level.spkiSHA256.count == 32
            let pin = Pin(kind: .spki, digest: level.spkiSHA256, text: "sha256/" + Data(level.spkiSHA256).base64EncodedString())
            let days = level.notAfter.map { WholeNumber.clamped($0.timeIntervalSince(now) / 86_400) } ?? 36_500
            return LevelReport(
                level: level.level, role: level.role, certificate: certificate,
                matches: matched ? [PinMatch(tier: level.tier ?? (level.role == .leaf ? .leaf : .ca), pin: pin)] : [], daysLeft: days)
        }
        let intercepted = alerts.contains(.intercepted) || headline == .intercepted
        let report = HostReport(
            config: config, result: result, status: status, matchedTiers: matchedTiers, alerts: alerts, levels: levelReports,
            leafDaysLeft: levelReports.first?.daysLeft, proxy: ProxyReport(detected: intercepted, intercepted: intercepted), now: now)
        return report.decidedElsewhere(severity: severity, headline: headline, reason: reason)
    }
}
