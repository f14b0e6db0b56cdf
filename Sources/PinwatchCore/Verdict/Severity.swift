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

/// A host's severity with the one sentence that explains it.
public struct HostAssessment: Hashable, Sendable {
    public var severity: HostSeverity
    public var reason: String

    public init(severity: HostSeverity, reason: String) {
        self.severity = severity
        self.reason = reason
    }
}

extension Verdict {
    /// The single place that decides urgency. Every status × alert
    /// combination lands in exactly one branch; the first that applies
    /// names the cause the on-call acts on first.
    public static func assess(
        status: HostStatus, alerts: [HostAlert], result: ProbeResult, leafDaysLeft: Int?, proxy: ProxyReport,
        history: HostHistory? = nil, now: Date = Date()
    ) -> HostAssessment {
        let has = Set(alerts)
        if status == .error {
            guard let failure = result.failure else {
                return HostAssessment(severity: .unknown, reason: "no certificate was obtained")
            }
            return HostAssessment(severity: .unknown, reason: "probe failed (\(failure.kind.rawValue)): \(failure.message)")
        }
        if has.contains(.intercepted) {
            let via = proxy.url.map { "intercepted by proxy \($0)" } ?? "intercepted by a proxy"
            return HostAssessment(
                severity: .critical,
                reason: "\(via): the chain seen through it is not trusted (TLS inspection, or a server chain no client trusts)")
        }
        if status == .blocked {
            var cause = blockedCause(has, result, leafDaysLeft)
            if proxy.detected {
                // The chain is trusted (else it would be intercepted): an honest
                // tunnel and an inspecting proxy with a trusted CA look alike.
                cause += " (seen through proxy \(proxy.url ?? "set in the environment"); a direct probe shows whether it is the server's)"
            }
            return HostAssessment(severity: .critical, reason: "pinned clients refuse this host now: " + cause)
        }
        if has.contains(.expired) {
            return HostAssessment(severity: .critical, reason: "the leaf certificate expired \(daysText(-(leafDaysLeft ?? 0))) ago")
        }
        let leafOnlyCause =
            history?.renewal.map { "only the leaf pin still matches: breaks in ~\(daysText($0.days(from: now))) (next leaf renewal)" }
            ?? "only the leaf pin still matches: breaks at the next leaf renewal"
        if has.contains(.criticalExpiry) {
            var reason = "the leaf certificate expires in \(daysText(leafDaysLeft ?? 0))"
            if status == .leafOnly { reason += "; " + leafOnlyCause }
            return HostAssessment(severity: .critical, reason: reason)
        }
        if status == .leafOnly {
            var reason = leafOnlyCause
            if let days = leafDaysLeft { reason += " (leaf expires in \(daysText(days)))" }
            return HostAssessment(severity: .warning, reason: reason)
        }
        if has.contains(.chainChanged) {
            let previous = history?.previousCANames.joined(separator: ", ") ?? ""
            let was = previous.isEmpty ? "" : " (was \(previous))"
            return HostAssessment(
                severity: .warning, reason: "the CA-level keys changed\(was): pins still match, but a CA rotation may have begun")
        }
        if has.contains(.pinsExpired) {
            return HostAssessment(
                severity: .warning, reason: "the app's pins for this host have expired: it no longer checks them (ship new pins)")
        }
        if has.contains(.pinsExpiring) {
            return HostAssessment(
                severity: .warning, reason: "the app's pins for this host expire within warn_days: then it stops checking them")
        }
        if has.contains(.expiring) {
            return HostAssessment(severity: .warning, reason: "the leaf certificate expires in \(daysText(leafDaysLeft ?? 0))")
        }
        if status == .unpinned {
            return HostAssessment(severity: .ok, reason: "no pins configured: inventory only")
        }
        return HostAssessment(severity: .ok, reason: "a CA-tier pin matches: survives leaf renewals")
    }

    private static func blockedCause(_ alerts: Set<HostAlert>, _ result: ProbeResult, _ leafDaysLeft: Int?) -> String {
        if alerts.contains(.expired) {
            return "the leaf certificate expired \(daysText(-(leafDaysLeft ?? 0))) ago"
        }
        if !result.trusted {
            return "chain not trusted (\(result.trustError ?? "the verifier gave no reason"))"
        }
        return "no configured pin matches the chain"
    }

    private static func daysText(_ days: Int) -> String {
        days == 1 ? "1 day" : "\(days) days"
    }
}
