import Foundation

/// DESIGN §5, in order of precedence.
public enum HostStatus: String, Sendable, Codable, CaseIterable {
    case error
    case unpinned
    case blocked
    case leafOnly = "leaf_only"
    case ok
}

/// DESIGN §5's alerts, in the order they are listed there.
public enum HostAlert: String, Sendable, Codable, CaseIterable {
    case leafOnly = "leaf_only"
    case noMatch = "no_match"
    case untrusted
    case expiring
    case criticalExpiry = "critical_expiry"
    case expired
    case proxy
    case intercepted
    case probeError = "probe_error"
    /// The CA-level keys changed since the last chain seen, pins matching
    /// or not: held for a day (`ChainChange.hold`), the first sign of a CA
    /// rotation.
    case chainChanged = "chain_changed"
    /// A client's pins for this host are past their expiration: Android
    /// and TrustKit stop enforcing them, so that release pins nothing.
    case pinsExpired = "pins_expired"
    /// A client's pins (or signed-list entry) expire within `warn_days`.
    case pinsExpiring = "pins_expiring"
    /// CA pins match only at a pooled intermediate: a renewal under a
    /// sibling intermediate breaks pinned clients (DESIGN §10).
    case intermediatePool = "intermediate_pool"
    /// The family announced a new hierarchy that no pin covers.
    case rootTransition = "root_transition"
    /// The host's provider may issue from a CA family no pin covers.
    case caSwitch = "ca_switch"
    /// The leaf has used more than `renew_share` of its lifetime and is
    /// still served, with more than `warn_days` left: its renewer should
    /// have replaced it, so renewal is failing whatever the days say.
    case renewalOverdue = "renewal_overdue"
    /// A level of the chain is listed as revoked by a CRL or stapled OCSP
    /// response signed by its issuer: clients that check revocation refuse
    /// it, and its reissue may bring a new key or intermediate.
    case revoked
    /// No verified CRL could be had for a level, and no other source vouched
    /// for it: revocation is unknown, which is never taken for `revoked`.
    case crlUnavailable = "crl_unavailable"
    /// The issuer's CRL is past its nextUpdate: a revocation since it was
    /// signed would not show.
    case crlStale = "crl_stale"
    /// Clients sent pin-failure reports (`report_uri:`) for a host that
    /// pinwatch sees fine: some network serves them another chain.
    case clientReports = "client_reports"
    /// A client release that requires Certificate Transparency refuses the
    /// leaf: its SCTs fall short of the policy (count, operators, valid
    /// signatures by the logs of `ct: logs:`).
    case ctNoncompliant = "ct_noncompliant"
    /// A certificate for the host was logged in Certificate Transparency
    /// (`ct:`) under a chain some client release has no pin on: it breaks
    /// that release once deployed.
    case nextLeafLogged = "next_leaf_logged"
    /// A followed Certificate Transparency log failed verification: its
    /// entries are ignored, so a certificate logged there goes unseen.
    case ctLogMisbehaving = "ct_log_misbehaving"
}

/// A configured pin that matched one level.
public struct PinMatch: Hashable, Sendable {
    public var tier: PinTier
    public var pin: Pin

    public init(tier: PinTier, pin: Pin) {
        self.tier = tier
        self.pin = pin
    }
}

/// One level of a host's chain with the pins it matched.
public struct LevelReport: Hashable, Sendable {
    public var level: Int
    public var role: ChainRole
    public var certificate: ChainCertificate
    public var matches: [PinMatch]
    public var daysLeft: Int
    /// The share of its lifetime used when the verdict was decided (0 to
    /// 1); nil where only some facts were known (a fleet's series).
    public var lifetimeUsed: Double?

    public init(
        level: Int, role: ChainRole, certificate: ChainCertificate, matches: [PinMatch], daysLeft: Int, lifetimeUsed: Double? = nil
    ) {
        self.level = level
        self.role = role
        self.certificate = certificate
        self.matches = matches
        self.daysLeft = daysLeft
        self.lifetimeUsed = lifetimeUsed
    }

    public var lifetime: CertificateLifetime { CertificateLifetime(certificate.facts) }
}

/// Proxy facts as reported (DESIGN §8 `proxy`).
public struct ProxyReport: Hashable, Sendable {
    public var detected: Bool
    /// `config` or the environment variable's name.
    public var source: String?
    /// Without credentials.
    public var url: String?
    public var intercepted: Bool

    public init(detected: Bool = false, source: String? = nil, url: String? = nil, intercepted: Bool = false) {
        self.detected = detected
        self.source = source
        self.url = url
        self.intercepted = intercepted
    }
}

/// The verdict for one host after one probe: what every output renders.
/// What decides the severity cannot change after it was decided.
public struct HostReport: Hashable, Sendable {
    public var config: HostConfig
    public let result: ProbeResult
    public let status: HostStatus
    /// `ca` before `leaf`.
    public var matchedTiers: [PinTier]
    public let alerts: [HostAlert]
    public var levels: [LevelReport]
    public let leafDaysLeft: Int?
    /// The level of the chain that expires first: what expiry alerts,
    /// days, `check` and the reason read (DESIGN §5).
    public let earliestExpiry: ChainExpiry?
    public let proxy: ProxyReport
    /// Decided by `Verdict.assess` from the fields above, once, here.
    public private(set) var severity: HostSeverity
    /// One sentence for the severity: what the on-call reads first.
    public private(set) var reason: String
    /// The one word every view shows for the host's state (the cause the
    /// reason leads with), decided with the severity.
    public private(set) var headline: HostHeadline
    /// What the history store knows (since, flaps, renewal forecast);
    /// nil with `state: off` or before the store has seen the host.
    @OutOfLine public private(set) var history: HostHistory?
    /// The client release whose view decided this report (it was worse
    /// than the configured pins' or the host has none); it leads the reason.
    public let decidedBy: String?
    /// What each client release that pins this host sees (`clients:`).
    public var clients: [ClientHostVerdict] = []
    /// The chains the host may serve next and whether these pins survive
    /// them; nil without pins or a chain.
    @OutOfLine public private(set) var nextChains: NextChains?
    /// Each probe this host is made of (`addresses: all`, `key_types:`),
    /// in probe order; empty for a host probed once.
    public private(set) var variants: [VariantVerdict] = []
    /// How the probes agree, for the row: `2/2 same chain`, `1 of 2
    /// addresses serve another chain`; nil for a host probed once.
    public private(set) var variantAgreement: String?
    /// `addresses: all`'s addresses outside this cycle's window, probed in
    /// a later cycle; empty when every address was.
    public private(set) var addressesNotProbed: [String] = []
    /// What the reason leads with when the probes disagree, and the probe
    /// whose verdict this is: kept apart so a verdict decided again (with
    /// history) leads with them again.
    private var divergenceText: String?
    private var divergenceWorst: String?
    /// The acknowledgement that holds now (`AcknowledgementBook`): the host
    /// stays listed but leaves the banner, the bell and `check`'s state.
    @OutOfLine public var acknowledgement: Acknowledgement? = nil
    /// What Certificate Transparency logged for the host; nil without `ct:`.
    public private(set) var ct: CTHostFacts?
    /// Set for a report rebuilt from another instance's series: what they
    /// carry beyond the verdict, so a view tells "not exported" from "none".
    public var series: SeriesFacts? = nil

    public init(
        config: HostConfig, result: ProbeResult, status: HostStatus, matchedTiers: [PinTier],
        alerts: [HostAlert], levels: [LevelReport], leafDaysLeft: Int?, proxy: ProxyReport, history: HostHistory? = nil,
        decidedBy: String? = nil, nextChains: NextChains? = nil, ct: CTHostFacts? = nil, now: Date = Date()
    ) {
        self.ct = ct
        self.decidedBy = decidedBy
        self.nextChains = nextChains
        self.config = config
        self.result = result
        self.status = status
        self.matchedTiers = matchedTiers
        self.alerts = alerts
        self.levels = levels
        self.leafDaysLeft = leafDaysLeft
        let earliestExpiry = Self.earliestExpiry(of: levels, proxy: proxy)
        self.earliestExpiry = earliestExpiry
        self.proxy = proxy
        self.history = history
        let assessment = Verdict.assess(
            status: status, alerts: alerts, result: result, expiry: earliestExpiry, proxy: proxy, history: history, now: now,
            matchedTiers: matchedTiers, levels: levels, nextChains: nextChains, pins: config.pins, ct: ct)
        severity = assessment.severity
        headline = assessment.headline
        // The release is named only before what its pins decided: "android
        // legacy: the leaf certificate expires" would pin a host fact on it.
        reason =
            decidedBy.flatMap { assessment.headline.isHostFact ? nil : "\($0): \(assessment.reason)" } ?? assessment.reason
    }

    /// Days left of the certificate that expires first; nil without a
    /// chain, or when the chain is an intercepting proxy's. Not inlined:
    /// with the fields kept out of line, Swift 6.3.1's optimiser crashes
    /// (its ownership verifier, after copy propagation) on a caller that
    /// compares two reports' days (`MonitorSource.isNews`).
    @inline(never) public var daysLeft: Int? { earliestExpiry?.daysLeft }

    /// What expires first of the server's chain. An intercepted chain was
    /// forged by the proxy: its dates are not the server's, and pinwatch
    /// cannot tell whether the server was even reached.
    static func earliestExpiry(of levels: [LevelReport], proxy: ProxyReport) -> ChainExpiry? {
        proxy.intercepted ? nil : ChainExpiry.earliest(of: levels)
    }

    /// The leaf's expiry when the chain is the server's.
    public var leafNotAfter: Date? {
        proxy.intercepted ? nil : levels.first?.certificate.facts.notAfter
    }

    /// The same facts with another status and alerts, assessed again:
    /// how a client's view adjusts the plain verdict.
    public func replacing(status: HostStatus? = nil, alerts: [HostAlert]? = nil, decidedBy: String?? = nil, now: Date) -> HostReport {
        let status = status ?? self.status
        var copy = HostReport(
            config: config, result: result, status: status, matchedTiers: status == .unpinned ? [] : matchedTiers,
            alerts: alerts ?? self.alerts, levels: levels, leafDaysLeft: leafDaysLeft, proxy: proxy, history: history,
            decidedBy: decidedBy ?? self.decidedBy, nextChains: nextChains, ct: ct, now: now)
        copy.clients = clients
        copy.carryVariants(of: self)
        return copy
    }

    /// The verdict another instance decided (`watch --prometheus` reads it
    /// back from its series): shown as it was decided there, not judged
    /// again from the few facts the series carry.
    public func decidedElsewhere(severity: HostSeverity, headline: HostHeadline, reason: String) -> HostReport {
        var copy = self
        copy.severity = severity
        copy.headline = headline
        copy.reason = reason
        return copy
    }

    /// The same verdict decided again with the host's history: the
    /// `chain_changed` alert, and a `leaf_only` reason that says when the
    /// next renewal will break pinned clients.
    public func with(history: HostHistory, now: Date) -> HostReport {
        var history = history
        history.caKeysChanged = history.caKeyChange?.holds(at: now) ?? false
        var alerts = self.alerts
        if history.caKeysChanged, status != .error, !alerts.contains(.chainChanged) { alerts.append(.chainChanged) }
        var copy = HostReport(
            config: config, result: result, status: status, matchedTiers: matchedTiers, alerts: alerts, levels: levels,
            leafDaysLeft: leafDaysLeft, proxy: proxy, history: history, decidedBy: decidedBy,
            nextChains: nextChains, ct: ct, now: now)
        // Only a host pinwatch sees fine: one it already warns of explains
        // the reports, and they would only repeat its warning.
        if history.clientReports != nil, copy.severity == .ok, status != .error, !alerts.contains(.clientReports) {
            copy = HostReport(
                config: config, result: result, status: status, matchedTiers: matchedTiers, alerts: alerts + [.clientReports],
                levels: levels, leafDaysLeft: leafDaysLeft, proxy: proxy, history: history, decidedBy: decidedBy,
                nextChains: nextChains, ct: ct, now: now)
        }
        copy.clients = clients
        copy.carryVariants(of: self)
        return copy
    }

    /// The same verdict decided again with what Certificate Transparency
    /// logged for the host: `next_leaf_logged` while a logged certificate
    /// breaks a release, `ct_log_misbehaving` while a log fails
    /// verification. A probe that failed keeps its error.
    public func with(ct facts: CTHostFacts, now: Date) -> HostReport {
        var alerts = self.alerts.filter { $0 != .nextLeafLogged && $0 != .ctLogMisbehaving }
        if status != .error {
            if facts.breaking(at: now) != nil { alerts.append(.nextLeafLogged) }
            if !facts.misbehavingLogs.isEmpty { alerts.append(.ctLogMisbehaving) }
        }
        // Most hosts most cycles: nothing to raise or clear, so the verdict
        // stands and is not decided again.
        guard alerts != self.alerts || alerts.contains(.nextLeafLogged) || alerts.contains(.ctLogMisbehaving) else {
            var copy = self
            copy.ct = facts
            return copy
        }
        var copy = HostReport(
            config: config, result: result, status: status, matchedTiers: matchedTiers, alerts: alerts, levels: levels,
            leafDaysLeft: leafDaysLeft, proxy: proxy, history: history, decidedBy: decidedBy, nextChains: nextChains, ct: facts,
            now: now)
        copy.clients = clients
        copy.acknowledgement = acknowledgement
        copy.series = series
        copy.carryVariants(of: self)
        return copy
    }

    /// This report (the worst probe's) as the verdict of a host made of
    /// several probes: `VariantFold` decides the arguments.
    public func folding(
        variants: [VariantVerdict], agreement: String, divergence: (text: String, worst: String)?, notProbed: [String] = []
    ) -> HostReport {
        var copy = self
        copy.variants = variants
        copy.addressesNotProbed = notProbed
        copy.variantAgreement = agreement
        copy.divergenceText = divergence?.text
        copy.divergenceWorst = divergence?.worst
        if let divergence { copy.reason = "\(divergence.text); \(divergence.worst): \(reason)" }
        return copy
    }

    /// A verdict decided again (history, a client's view) keeps what the
    /// fold found, and its reason still leads with the divergence.
    private mutating func carryVariants(of original: HostReport) {
        guard original.variantAgreement != nil else { return }
        let divergence = original.divergenceText.map { (text: $0, worst: original.divergenceWorst ?? "") }
        self = folding(
            variants: original.variants, agreement: original.variantAgreement ?? "", divergence: divergence,
            notProbed: original.addressesNotProbed)
    }
}
