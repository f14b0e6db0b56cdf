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

    /// At most `limit` lines; the last says how many more there are.
    static func capped(_ lines: [StyledLine], limit: Int) -> [StyledLine] {
        guard limit > 0 else { return [] }
        guard lines.count > limit else { return lines }
        let more = lines.count - limit + 1
        return Array(lines.prefix(limit - 1)) + [[Span(" … and \(more) more host\(more == 1 ? "" : "s") need attention (see the table)", Style(.banner))]]
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
