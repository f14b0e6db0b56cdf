import Foundation

/// How urgent a host is, decided once (DESIGN §5) and read by every
/// output: header counts, banner, bell, sort, `check`, snapshots.
public enum HostSeverity: String, Sendable, Codable, CaseIterable {
    case critical
    case unknown
    case warning
    case ok

    /// DESIGN §7's order: CRITICAL > UNKNOWN > WARNING > OK. Higher is worse.
    public var rank: Int {
        switch self {
        case .ok: return 0
        case .warning: return 1
        case .unknown: return 2
        case .critical: return 3
        }
    }

    /// True when a host going from `previous` to `self` must be brought to
    /// the on-call's attention (the bell): ok → warning, warning → critical,
    /// anything → unknown. A host's first result counts as coming from ok,
    /// and one that comes back from an error into trouble is news too.
    public func isWorse(than previous: HostSeverity?) -> Bool {
        let before = previous ?? .ok
        guard self != before else { return false }
        switch (before, self) {
        case (_, .unknown): return true
        case (.unknown, .ok): return false
        case (.unknown, _): return true
        default: return rank > before.rank
        }
    }

    /// Worst first, as the banner and `check` list them.
    public static let worstFirst: [HostSeverity] = [.critical, .unknown, .warning, .ok]
}

/// A host's severity with the one sentence that explains it, and the
/// one word (headline) for the cause that sentence leads with.
public struct HostAssessment: Hashable, Sendable {
    public var severity: HostSeverity
    public var reason: String
    public var headline: HostHeadline

    public init(severity: HostSeverity, reason: String, headline: HostHeadline) {
        self.severity = severity
        self.reason = reason
        self.headline = headline
    }
}

extension Verdict {
    /// The single place that decides urgency. Every status × alert
    /// combination lands in exactly one branch; the first that applies
    /// names the cause the on-call acts on first.
    public static func assess(
        status: HostStatus, alerts: [HostAlert], result: ProbeResult, expiry: ChainExpiry?, proxy: ProxyReport,
        history: HostHistory? = nil, now: Date = Date(), matchedTiers: [PinTier] = [.ca], levels: [LevelReport] = [],
        nextChains: NextChains? = nil, pins: PinSet = PinSet(), ct: CTHostFacts? = nil
    ) -> HostAssessment {
        let has = Set(alerts)
        if status == .error {
            guard let failure = result.failure else {
                return HostAssessment(severity: .unknown, reason: "no certificate was obtained", headline: .error)
            }
            return HostAssessment(severity: .unknown, reason: failure.reason, headline: .error)
        }
        if has.contains(.intercepted) {
            let via = proxy.url.map { "intercepted by proxy \($0)" } ?? "intercepted by a proxy"
            return HostAssessment(
                severity: .critical,
                reason:
                    "\(via): the chain came from the proxy, not the server, and it is not trusted; whether the server was reached is unknown",
                headline: .intercepted)
        }
        if status == .blocked, let transparency = transparencyCause(has, result) {
            return HostAssessment(
                severity: .critical, reason: "pinned clients refuse this host now: " + transparency, headline: .ctNoncompliant)
        }
        if status == .blocked {
            var cause = blockedCause(has, result, expiry)
            if has.contains(.noMatch), result.trusted, !has.contains(.expired),
                let hint = RotationHint.text(pins: pins, history: history, levels: levels)
            {
                cause += ": \(hint)"
            }
            if proxy.detected {
                // The chain is trusted (else it would be intercepted): an honest
                // tunnel and an inspecting proxy with a trusted CA look alike.
                cause += " (seen through proxy \(proxy.url ?? "set in the environment"); a direct probe shows whether it is the server's)"
            }
            return HostAssessment(severity: .critical, reason: "pinned clients refuse this host now: " + cause, headline: .blocked)
        }
        if has.contains(.revoked) {
            return HostAssessment(severity: .critical, reason: RevocationText.revokedSentence(result.revocation), headline: .revoked)
        }
        if has.contains(.expired) {
            return HostAssessment(severity: .critical, reason: expirySentence(expiry), headline: .expired)
        }
        // A renewal estimated in the past has not happened yet: it is due
        // any day, not "in ~0 days".
        let leafOnlyCause =
            history?.renewal.map { renewal in
                let days = renewal.days(from: now)
                return renewal.date <= now
                    ? "only the leaf pin still matches: breaks at the next leaf renewal, which is due now"
                    : "only the leaf pin still matches: breaks in ~\(daysText(days)) (next leaf renewal"
                        + (renewal.rule.map { ": \($0))" } ?? ")")
            }
            ?? "only the leaf pin still matches: breaks at the next leaf renewal"
        let logged = has.contains(.nextLeafLogged) ? ct?.breaking(at: now) : nil
        if let logged, logged.notBefore <= now {
            return HostAssessment(
                severity: .critical, reason: CTLoggedText.sentence(logged, now: now),
                headline: .nextLeafLogged)
        }
        if has.contains(.criticalExpiry) {
            var reason = expirySentence(expiry)
            if status == .leafOnly { reason += "; " + leafOnlyCause }
            return HostAssessment(severity: .critical, reason: reason, headline: .expiring)
        }
        if status == .leafOnly {
            var reason = leafOnlyCause
            if let expiry { reason += " (\(expiry.shortSentence))" }
            return HostAssessment(severity: .warning, reason: reason, headline: .leafOnly)
        }
        if has.contains(.chainChanged) {
            let what = history?.caChange.map { " (\($0))" } ?? ""
            // An unpinned host has no pins to still match.
            let pins = status == .unpinned ? "" : "pins still match, but "
            return HostAssessment(
                severity: .warning, reason: "the CA-level keys changed\(what): \(pins)a CA rotation may have begun",
                headline: .chainChanged)
        }
        if has.contains(.pinsExpired) {
            return HostAssessment(
                severity: .warning, reason: "the app's pins for this host have expired: it no longer checks them (ship new pins)",
                headline: .pinsExpired)
        }
        if has.contains(.pinsExpiring) {
            return HostAssessment(
                severity: .warning, reason: "the app's pins for this host expire within warn_days: then it stops checking them",
                headline: .pinsExpiring)
        }
        if has.contains(.expiring) {
            return HostAssessment(severity: .warning, reason: expirySentence(expiry), headline: .expiring)
        }
        if has.contains(.renewalOverdue) {
            return HostAssessment(severity: .warning, reason: renewalOverdueSentence(levels.first), headline: .renewalOverdue)
        }
        if has.contains(.crlStale) {
            return HostAssessment(severity: .warning, reason: RevocationText.staleSentence(result.revocation), headline: .crlStale)
        }
        if has.contains(.crlUnavailable) {
            return HostAssessment(
                severity: .warning, reason: RevocationText.unavailableSentence(result.revocation), headline: .crlUnavailable)
        }
        // Evidence comes before the next-chain estimates: the logged
        // certificate is the chain a renewal will bring.
        if let logged {
            return HostAssessment(
                severity: .warning, reason: CTLoggedText.sentence(logged, now: now),
                headline: .nextLeafLogged)
        }
        if has.contains(.ctLogMisbehaving), let logs = ct?.misbehavingLogs, !logs.isEmpty {
            return HostAssessment(
                severity: .warning,
                reason: "Certificate Transparency log \(logs.joined(separator: ", ")) failed verification: its entries are ignored, "
                    + "so a certificate logged there for this host would go unseen",
                headline: .ctLogMisbehaving)
        }
        if let nextChains, let warning = NextChainReasons.warning(alerts: has, nextChains: nextChains, levels: levels) {
            return warning
        }
        if has.contains(.clientReports), let reports = history?.clientReports {
            return HostAssessment(
                severity: .warning,
                reason: "clients on some network see a different chain: \(reports.sentence)", headline: .clientReports)
        }
        if status == .unpinned {
            return HostAssessment(severity: .ok, reason: "no pins configured: inventory only", headline: .unpinned)
        }
        if !matchedTiers.contains(.ca) {
            // Only a signed list's leaf fingerprints are ok on the leaf alone.
            return HostAssessment(
                severity: .ok, reason: "the leaf certificate matches a signed-list pin: publish the next leaf's before renewing",
                headline: .ok)
        }
        if let nextChains, nextChains.family == nil, NextChainReasons.matchesOnlyIntermediates(levels) {
            // The catalogue cannot tell whether this CA rotates among
            // intermediates: say what the pin is known to survive, no more.
            return HostAssessment(
                severity: .ok, reason: "an intermediate pin matches: survives leaf renewals, not a change of intermediate",
                headline: .ok)
        }
        return HostAssessment(severity: .ok, reason: "a CA-tier pin matches: survives leaf renewals", headline: .ok)
    }

    /// A release refuses only for want of SCTs: its pins match and the
    /// chain is trusted and in date.
    private static func transparencyCause(_ alerts: Set<HostAlert>, _ result: ProbeResult) -> String? {
        guard alerts.contains(.ctNoncompliant), !alerts.contains(.noMatch), !alerts.contains(.expired), result.trusted,
            let leaf = result.chain.first
        else { return nil }
        let counted = result.scts.map { CTCompliance.judge($0, leaf: leaf.facts).sentence } ?? "no SCT was checked"
        return "it requires Certificate Transparency and the leaf falls short: \(counted)"
    }

    private static func blockedCause(_ alerts: Set<HostAlert>, _ result: ProbeResult, _ expiry: ChainExpiry?) -> String {
        if alerts.contains(.expired) {
            return expirySentence(expiry)
        }
        if !result.trusted {
            return "chain not trusted (\(result.trustError ?? "the verifier gave no reason"))"
        }
        return "no configured pin matches the chain"
    }

    /// The expiry alerts come from the chain's earliest expiry; the
    /// fallback only keeps a hand-made alert list explained.
    private static func expirySentence(_ expiry: ChainExpiry?) -> String {
        expiry?.sentence ?? "a certificate of the chain is expiring"
    }

    /// `the leaf has used 72% of its 90-day lifetime and has not been
    /// renewed: renewal may be failing (25 days left)`.
    private static func renewalOverdueSentence(_ leaf: LevelReport?) -> String {
        guard let leaf, let used = leaf.lifetimeUsed else {
            return "the leaf has used more than renew_share of its lifetime and has not been renewed: renewal may be failing"
        }
        return "the leaf has used \(CertificateLifetime.percent(used)) of its \(leaf.lifetime.daysAdjective) lifetime "
            + "and has not been renewed: renewal may be failing (\(daysText(leaf.daysLeft)) left)"
    }

    private static func daysText(_ days: Int) -> String {
        days == 1 ? "1 day" : "\(days) days"
    }
}
