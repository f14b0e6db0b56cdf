import Foundation
import PinwatchCore

/// The alert banner: one line per host that needs the on-call, in words.
enum BannerLayout {
    /// Every alert line, worst first (blocked, expired, leaf_only), then configuration order.
    static func lines(for state: DashboardState) -> [StyledLine] {
        let banner = Style(.banner)
        var blocked: [StyledLine] = []
        var expired: [StyledLine] = []
        var leafOnly: [StyledLine] = []
        for (index, host) in state.hosts.enumerated() {
            guard let report = state.reports[index] else { continue }
            let name = host.displayName
            if report.status == .blocked {
                blocked.append([Span(" ✗ BLOCKED \(name): pinned clients refuse this host now — \(blockedReason(report))", banner)])
            } else if report.alerts.contains(.expired) {
                let ago = -(report.leafDaysLeft ?? 0)
                expired.append([Span(" ✗ EXPIRED \(name): the leaf certificate expired \(ago) day\(ago == 1 ? "" : "s") ago", banner)])
            }
            if report.status == .leafOnly {
                var text = " ⚠ LEAF ONLY \(name): only the leaf pin still matches: breaks at next renewal"
                if let days = report.leafDaysLeft {
                    text += days >= 0 ? " (leaf renews within \(days) day\(days == 1 ? "" : "s"))" : " (leaf already expired)"
                }
                leafOnly.append([Span(text, banner)])
            }
        }
        return blocked + expired + leafOnly
    }

    /// The live screen's banner in at most `limit` lines: one line per host
    /// while they fit, else one line per kind of trouble naming its hosts.
    ///
    /// Grouping keeps a `leaf_only` host on screen however many hosts are
    /// blocked: "breaks at the next renewal" is the warning pinwatch exists
    /// for, and it must never hide behind "… and N more".
    static func live(for state: DashboardState, limit: Int) -> [StyledLine] {
        guard limit > 0 else { return [] }
        let lines = lines(for: state)
        guard lines.count > limit else { return lines }
        return Array(grouped(for: state).prefix(limit))
    }

    /// One line per kind: leaf_only first, then blocked, then expired.
    static func grouped(for state: DashboardState) -> [StyledLine] {
        let banner = Style(.banner)
        var leafOnly: [String] = []
        var blocked: [String] = []
        var expired: [String] = []
        for (index, host) in state.hosts.enumerated() {
            guard let report = state.reports[index] else { continue }
            if report.status == .leafOnly {
                let days = report.leafDaysLeft.map { $0 >= 0 ? " (\($0)d)" : " (expired)" } ?? ""
                leafOnly.append(host.displayName + days)
            }
            if report.status == .blocked { blocked.append(host.displayName) }
            if report.alerts.contains(.expired) && report.status != .blocked { expired.append(host.displayName) }
        }
        var lines: [StyledLine] = []
        if !leafOnly.isEmpty {
            lines.append([Span(" ⚠ LEAF ONLY ×\(leafOnly.count): only the leaf pin still matches: breaks at next renewal — \(leafOnly.joined(separator: ", "))", banner)])
        }
        if !blocked.isEmpty {
            lines.append([Span(" ✗ BLOCKED ×\(blocked.count): pinned clients refuse these hosts now — \(blocked.joined(separator: ", "))", banner)])
        }
        if !expired.isEmpty {
            lines.append([Span(" ✗ EXPIRED ×\(expired.count): leaf certificate expired — \(expired.joined(separator: ", "))", banner)])
        }
        return lines
    }

    private static func blockedReason(_ report: HostReport) -> String {
        if report.alerts.contains(.intercepted) { return "TLS interception by the proxy" }
        if report.alerts.contains(.expired) { return "the leaf certificate has expired" }
        if !report.result.trusted {
            return "chain not trusted: \(report.result.trustError ?? "unknown reason")"
        }
        return "no configured pin matches the chain"
    }
}
