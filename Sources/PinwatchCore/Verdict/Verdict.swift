import Foundation

/// Turns one probe result into the verdict DESIGN §5 defines.
///
/// Pure and total, so that every output (dashboard, snapshot, check) agrees
/// on the same facts and the truth table can be tested without sockets.
public enum Verdict {
    /// - Parameter catalogue: the CA families the next chains are judged
    ///   against; without it every CA is unknown beyond a leaf renewal.
    /// - Parameter renewShare: `renew_share`; nil never raises `renewal_overdue`.
    /// - Parameter clientStore: a client release's own trust store: the
    ///   chain is judged on the path that store builds from what was sent.
    /// - Parameter memo: next chains judged before (a poller's), used
    ///   without a `clientStore`.
    public static func report(
        for host: HostConfig, result probed: ProbeResult, now: Date, warnDays: Int, criticalDays: Int,
        catalogue: Catalogue = .empty, renewShare: Double? = Config.defaultRenewShare, clientStore: TrustStore? = nil,
        memo: NextChainMemo? = nil
    ) -> HostReport {
        let result = clientStore.map { seen(probed, by: $0) } ?? probed
        let proxy = ProxyReport(detected: result.proxy != nil, source: result.proxy?.source, url: result.proxy?.redactedURL)
        guard result.failure == nil, !result.chain.isEmpty else {
            var alerts: [HostAlert] = []
            if proxy.detected { alerts.append(.proxy) }
            alerts.append(.probeError)
            return HostReport(
                config: host, result: result, status: .error, matchedTiers: [], alerts: alerts, levels: [],
                leafDaysLeft: nil, proxy: proxy)
        }

        // Today's pins are judged on the client's path, as every next chain
        // is: the verified chain, cut at the store's anchor.
        let todayPath = ClientPath.build(served: result.chain.map(\.facts), store: verifiedStore(result))
        let pathLength = todayPath.anchored ? todayPath.certificates.count : result.chain.count
        let levels = result.chain.prefix(pathLength).enumerated().map { level, certificate in
            LevelReport(
                level: level,
                role: ChainRole.role(
                    ofLevel: level, isSelfSigned: certificate.facts.isSelfSigned,
                    isTrustAnchor: result.trusted && level == pathLength - 1),
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
        // An interceptor's chain is not the server's: its revocation is nobody's.
        if !reportProxy.intercepted { alerts += RevocationText.alerts(result.revocation) }
        if reportProxy.detected { alerts.append(.proxy) }
        if reportProxy.intercepted { alerts.append(.intercepted) }
        // An intercepted chain says nothing of what the server serves next.
        let analyse = {
            NextChainAnalysis.analyse(
                levels: levels, pins: host.pins, provider: host.provider, catalogue: catalogue,
                store: clientStore ?? judgingStore(host: host, result: result, catalogue: catalogue), trusted: result.trusted,
                now: now)
        }
        let nextChains: NextChains?
        if reportProxy.intercepted {
            nextChains = nil
        } else if clientStore == nil, let memo {
            // The memo's key is what `judgingStore` reads of the host and result.
            nextChains = memo.nextChains(
                levels: levels, pins: host.pins, provider: host.provider, systemTrust: host.trust == .system,
                anchor: verifiedStore(result).anchors.first, trusted: result.trusted, catalogue: catalogue, now: now,
                analyse: analyse)
        } else {
            nextChains = analyse()
        }
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

    /// What a client with `store` makes of the chain the server sent: its
    /// own path, trusted only if one of its roots is on it (and the
    /// handshake verified otherwise: names, dates).
    static func seen(_ result: ProbeResult, by store: TrustStore) -> ProbeResult {
        guard result.failure == nil, !result.chain.isEmpty else { return result }
        let sent = result.chain.filter(\.fromServer).map(\.facts)
        let path = ClientPath.build(served: sent.isEmpty ? [result.chain[0].facts] : sent, store: store)
        var seen = result
        seen.chain = path.certificates.map { facts in ChainCertificate(facts: facts, fromServer: sent.contains(facts)) }
        seen.trusted = result.trusted && path.anchored
        if !path.anchored {
            seen.trustError = "\(store.name) holds no root on the path the server's chain gives"
        }
        return seen
    }

    /// The store as far as today's handshake proves it: the anchor the
    /// verifier reached.
    static func verifiedStore(_ result: ProbeResult) -> TrustStore {
        let anchor = result.trusted ? result.chain.last.map { [$0.facts] } ?? [] : []
        return TrustStore(name: "the host's store", anchors: anchor)
    }

    /// The store next chains are judged against: the verified anchor; the
    /// catalogue roots the data says the system store holds (for a host on
    /// it) or lacks; and the roots the data says nothing about (a family
    /// of the user's), taken as chosen for the hosts they serve.
    static func judgingStore(host: HostConfig, result: ProbeResult, catalogue: Catalogue) -> TrustStore {
        var store = verifiedStore(result)
        store.assumesUnlistedRoots = true
        let system = host.trust == .system
        if system { store.name = "the system store" }
        for family in catalogue.families {
            for root in family.roots + family.transitions.flatMap(\.roots) {
                switch root.inSystemStore {
                case nil: store.anchors.append(root.facts)
                case true?: if system { store.anchors.append(root.facts) }
                case false?: store.absent.append(root.facts)
                }
            }
        }
        return store
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
