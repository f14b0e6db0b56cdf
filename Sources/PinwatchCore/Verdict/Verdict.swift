import Foundation

/// Turns one probe result into the verdict DESIGN §5 defines.
///
/// Pure and total, so that every output (dashboard, snapshot, check) agrees
/// on the same facts and the truth table can be tested without sockets.
public enum Verdict {
    /// - Parameter catalogue: the CA families the next chains are judged
    ///   against; without it every CA is unknown beyond a leaf renewal.
    /// - Parameter renewShare: `renew_share`; nil never raises `renewal_overdue`.
    public static func report(
        for host: HostConfig, result: ProbeResult, now: Date, warnDays: Int, criticalDays: Int, catalogue: Catalogue = .empty,
        renewShare: Double? = Config.defaultRenewShare
    ) -> HostReport {
        let proxy = ProxyReport(detected: result.proxy != nil, source: result.proxy?.source, url: result.proxy?.redactedURL)
        guard result.failure == nil, !result.chain.isEmpty else {
            var alerts: [HostAlert] = []
            if proxy.detected { alerts.append(.proxy) }
            alerts.append(.probeError)
            return HostReport(
                config: host, result: result, status: .error, matchedTiers: [], alerts: alerts, levels: [],
                leafDaysLeft: nil, proxy: proxy)
        }

        let levels = result.chain.enumerated().map { level, certificate in
            LevelReport(
                level: level,
                role: ChainRole.role(
                    ofLevel: level, isSelfSigned: certificate.facts.isSelfSigned,
                    isTrustAnchor: result.trusted && level == result.chain.count - 1),
                certificate: certificate, matches: matches(of: certificate.facts, atLevel: level, pins: host.pins),
                daysLeft: daysLeft(until: certificate.facts.notAfter, now: now),
                lifetimeUsed: CertificateLifetime(certificate.facts).used(at: now))
        }
        let matchedTiers = PinTier.allCases.filter { tier in
            levels.contains { level in level.matches.contains { $0.tier == tier } }
        }
        let pinned = !host.pins.isEmpty
        let noMatch = pinned && matchedTiers.isEmpty
        let status: HostStatus
        if !pinned {
            status = .unpinned
        } else if !result.trusted || noMatch {
            status = .blocked
        } else if matchedTiers.contains(.ca) {
            status = .ok
        } else {
            status = .leafOnly
        }

        var reportProxy = proxy
        // Only an untrusted chain says the proxy put its own in: a trusted
        // chain no pin matches is what an honest tunnel shows of a server
        // whose pins are wrong, and nothing here tells the two apart.
        reportProxy.intercepted = proxy.detected && !result.trusted
        // An interceptor's chain says nothing of the server's certificates:
        // no days, and no expiry alerts about a forged leaf.
        let leafDaysLeft = reportProxy.intercepted ? nil : levels[0].daysLeft
        // Clients fail when any level of the chain expires, not only the leaf.
        let earliestDaysLeft = HostReport.earliestExpiry(of: levels, proxy: reportProxy)?.daysLeft
        var alerts: [HostAlert] = []
        if status == .leafOnly { alerts.append(.leafOnly) }
        if noMatch { alerts.append(.noMatch) }
        if !result.trusted { alerts.append(.untrusted) }
        if let days = earliestDaysLeft {
            if days >= 0 && days <= warnDays { alerts.append(.expiring) }
            if days >= 0 && days <= criticalDays { alerts.append(.criticalExpiry) }
            if days < 0 { alerts.append(.expired) }
        }
        if !reportProxy.intercepted, renewalOverdue(levels[0], renewShare: renewShare, warnDays: warnDays) {
            alerts.append(.renewalOverdue)
        }
        if reportProxy.detected { alerts.append(.proxy) }
        if reportProxy.intercepted { alerts.append(.intercepted) }
        // An intercepted chain says nothing of what the server serves next.
        let nextChains =
            reportProxy.intercepted
            ? nil : NextChainAnalysis.analyse(levels: levels, pins: host.pins, provider: host.provider, catalogue: catalogue)
        if status == .ok, let nextChains { alerts += nextChainAlerts(nextChains) }

        return HostReport(
            config: host, result: result, status: status, matchedTiers: matchedTiers, alerts: alerts, levels: levels,
            leafDaysLeft: leafDaysLeft, proxy: reportProxy, nextChains: nextChains, now: now)
    }

    /// A leaf past the share of its life at which its renewer replaces it
    /// has not been replaced. Within `warn_days` the expiry alerts say the
    /// same with the days, and take over.
    static func renewalOverdue(_ leaf: LevelReport, renewShare: Double?, warnDays: Int) -> Bool {
        guard let renewShare, let used = leaf.lifetimeUsed else { return false }
        return used > renewShare && leaf.daysLeft > warnDays
    }

    /// The next chains that would break clients that work today.
    static func nextChainAlerts(_ nextChains: NextChains) -> [HostAlert] {
        var alerts: [HostAlert] = []
        if nextChains.survives(.leafRenewal) == true && nextChains.survives(.intermediateRotation) == false {
            alerts.append(.intermediatePool)
        }
        if nextChains.survives(.rootTransition) == false { alerts.append(.rootTransition) }
        if nextChains.survives(.caSwitch) == false { alerts.append(.caSwitch) }
        return alerts
    }

    /// Every pin of every tier against the digest of its own kind: a CA pin
    /// that happens to match the leaf still counts, as it does in clients.
    /// An `auto` pin takes the tier of the level it matches: the leaf's
    /// key changes at renewal whoever pinned it.
    static func matches(of facts: CertificateFacts, atLevel level: Int, pins: PinSet) -> [PinMatch] {
        let written = PinTier.allCases.flatMap { tier in
            pins.pins(in: tier)
                .filter { $0.digest == facts.digest(for: $0.kind) }
                .map { PinMatch(tier: tier, pin: $0) }
        }
        let inferredTier: PinTier = level == 0 ? .leaf : .ca
        let inferred = pins.auto
            .filter { $0.digest == facts.digest(for: $0.kind) && !written.contains(PinMatch(tier: inferredTier, pin: $0)) }
            .map { PinMatch(tier: inferredTier, pin: $0) }
        return written + inferred
    }

    /// Whole days, rounded down, so the last day before expiry reads 0 and
    /// an expired certificate is negative.
    public static func daysLeft(until notAfter: Date, now: Date) -> Int {
        Int((notAfter.timeIntervalSince(now) / 86_400).rounded(.down))
    }
}
