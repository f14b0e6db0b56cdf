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
    /// the SPKI pin, start of validity, an undated level's expiry, whether
    /// the server sent a level, trust beyond the `untrusted` alert) are
    /// left empty and named in `series`: the detail view says "not
    /// exported" for them and the JSON null, nothing invented.
    package func report(now: Date) -> HostReport {
        var shared = SharedPinMatches()
        return report(now: now, sharing: &shared)
    }

    /// `report(now:)` for one of many rows: the pin matches of the levels
    /// they have in common are `shared`'s.
    package func report(now: Date, sharing shared: inout SharedPinMatches) -> HostReport {
        let certificates = levels.map { level in
            let notAfter = level.notAfter ?? .distantFuture
            let facts = CertificateFacts(
                subject: level.subject, issuer: "", notBefore: .distantPast, notAfter: notAfter, keyDescription: "",
                spkiSHA256: level.spkiSHA256, keySHA256: [], certSHA256: [], isCA: level.role != .leaf,
                isSelfSigned: level.role == .root)
            return ChainCertificate(facts: facts, fromServer: level.role != .root)
        }
        var result: ProbeResult =
            failure.map { kind in .failed(ProbeFailure(kind: kind, reason: reason), elapsed: elapsed ?? 0) }
            // `serve` alerts `untrusted` on every chain its verifier refused.
            ?? ProbeResult(chain: certificates, sentCount: certificates.count, trusted: !alerts.contains(.untrusted))
        // The row's age is its instance's, not this query's.
        result.finishedAt = lastCycle ?? now
        let levelReports = zip(levels, certificates).map { level, certificate in
            let matched = level.pinMatches == true && level.spkiSHA256.count == 32
            let matches =
                matched
                ? shared.matches(level.tier ?? (level.role == .leaf ? .leaf : .ca), digest: level.spkiSHA256, role: level.role) : []
            let days = level.notAfter.map { WholeNumber.clamped($0.timeIntervalSince(now) / 86_400) } ?? 36_500
            return LevelReport(level: level.level, role: level.role, certificate: certificate, matches: matches, daysLeft: days)
        }
        let intercepted = alerts.contains(.intercepted) || headline == .intercepted
        // As a probe's: no days for a leaf a proxy forged, nor for one no series dates.
        let leafDated = !intercepted && levels.first.map { $0.level == 0 && $0.notAfter != nil } == true
        var report = HostReport(
            config: config, result: result, status: status, matchedTiers: matchedTiers, alerts: alerts, levels: levelReports,
            leafDaysLeft: leafDated ? levelReports.first?.daysLeft : nil,
            proxy: ProxyReport(detected: intercepted || alerts.contains(.proxy), intercepted: intercepted),
            now: now
        )
        .decidedElsewhere(severity: severity, headline: headline, reason: staleReason(now: now))
        var series = SeriesFacts(instance: instance.isEmpty ? nil : instance)
        series.pinnedLevels = Self.levelSet(levels.filter { $0.pinMatches != nil }.map(\.level))
        series.datedLevels = Self.levelSet(levels.filter { $0.notAfter != nil }.map(\.level))
        series.probes = probes
        series.elapsed = elapsed
        series.survival = survival
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

    /// Levels of a chain as a set; those of a chain of up to four levels
    /// from a table made once, so that a fleet's rows share a few sets
    /// rather than each holding two of its own.
    static func levelSet(_ levels: [Int]) -> Set<Int> {
        var mask = 0
        for level in levels {
            guard (0..<4).contains(level) else { return Set(levels) }
            mask |= 1 << level
        }
        return shortChainSets[mask]
    }

    private static let shortChainSets: [Set<Int>] = (0..<16).map { mask in Set((0..<4).filter { mask & (1 << $0) != 0 }) }

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
