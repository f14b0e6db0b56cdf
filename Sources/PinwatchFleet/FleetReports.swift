import Foundation
import PinwatchCore

extension FleetHost {
    /// The row as the local dashboard's value: the host (with its vantage,
    /// labels and runbook), the chain the series describe, and the verdict
    /// as `serve` decided it.
    package var config: HostConfig {
        var config = HostConfig(host: host, port: port, serverName: sni, connectAddress: address)
        config.vantage = vantage
        config.labels = labels
        config.runbook = runbook
        return config
    }

    /// Facts the series do not carry (issuer, key type, digests other than
    /// the SPKI pin, start of validity, trust) are left empty and named in
    /// `series`: the detail view says "not exported" for them, nothing
    /// invented.
    package func report(now: Date) -> HostReport {
        let certificates = levels.map { level in
            let notAfter = level.notAfter ?? .distantFuture
            let facts = CertificateFacts(
                subject: level.subject, issuer: "", notBefore: .distantPast, notAfter: notAfter, keyDescription: "",
                spkiSHA256: level.spkiSHA256, keySHA256: [], certSHA256: [], isCA: level.role != .leaf,
                isSelfSigned: level.role == .root)
            return ChainCertificate(facts: facts, fromServer: level.role != .root)
        }
        var result: ProbeResult =
            failure.map { kind in .failed(ProbeFailure(kind: kind, message: reason), elapsed: elapsed ?? 0) }
            ?? ProbeResult(chain: certificates, sentCount: certificates.count, trusted: true)
        // The row's age is its instance's, not this query's.
        result.finishedAt = lastCycle ?? now
        let levelReports = zip(levels, certificates).map { level, certificate in
            let matched = level.pinMatches == true && level.spkiSHA256.count == 32
            let pin = Pin(kind: .spki, digest: level.spkiSHA256, text: "sha256/" + Data(level.spkiSHA256).base64EncodedString())
            let days = level.notAfter.map { WholeNumber.clamped($0.timeIntervalSince(now) / 86_400) } ?? 36_500
            return LevelReport(
                level: level.level, role: level.role, certificate: certificate,
                matches: matched ? [PinMatch(tier: level.tier ?? (level.role == .leaf ? .leaf : .ca), pin: pin)] : [], daysLeft: days)
        }
        let intercepted = alerts.contains(.intercepted) || headline == .intercepted
        var report = HostReport(
            config: config, result: result, status: status, matchedTiers: matchedTiers, alerts: alerts, levels: levelReports,
            leafDaysLeft: levelReports.first?.daysLeft, proxy: ProxyReport(detected: intercepted, intercepted: intercepted), now: now
        )
        .decidedElsewhere(severity: severity, headline: headline, reason: staleReason(now: now))
        var series = SeriesFacts(instance: instance.isEmpty ? nil : instance)
        series.pinnedLevels = Set(levels.filter { $0.pinMatches != nil }.map(\.level))
        series.datedLevels = Set(levels.filter { $0.notAfter != nil }.map(\.level))
        series.probes = probes
        series.elapsed = elapsed
        series.staleSince = staleSince
        report.series = series
        if acknowledged {
            // Left out of the banner, the bell and the counts, as on the
            // instance that holds the acknowledgement.
            report.acknowledgement = Acknowledgement(
                hostIdentity: config.identityKey, until: .distantFuture, reason: "on its instance (why: \(SeriesFacts.notExported))",
                source: .instance,
                state: AcknowledgedState(severity: severity, headline: headline))
        }
        return report
    }

    /// The remote reason, led by how old it is once its instance is gone.
    private func staleReason(now: Date) -> String {
        guard let staleSince else { return reason }
        let age = WholeNumber.clamped(now.timeIntervalSince(staleSince))
        let from = instance.isEmpty ? "its instance" : instance
        return "stale \(FleetHost.age(age)): \(from) gone, last known: \(reason)"
    }

    /// `42 s`, `5 min`, `3 h`, `2 d`.
    static func age(_ seconds: Int) -> String {
        if seconds < 60 { return "\(max(0, seconds)) s" }
        if seconds < 3_600 { return "\(seconds / 60) min" }
        if seconds < 86_400 { return "\(seconds / 3_600) h" }
        return "\(seconds / 86_400) d"
    }
}
