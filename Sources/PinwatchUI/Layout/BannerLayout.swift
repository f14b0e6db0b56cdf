import Foundation
import PinwatchCore

/// The alert banner: one line per host that needs the on-call, in words.
enum BannerLayout {
    /// One host's alert: its full line, and the few words that name it
    /// when the banner has no room for the line.
    struct Alert {
        var line: StyledLine
        var summary: String
    }

    /// Every alert line, worst first (blocked, expired, leaf_only), then configuration order.
    static func lines(for state: DashboardState) -> [StyledLine] {
        alerts(for: state).map(\.line)
    }

    /// Every alert, worst first (blocked, expired, leaf_only), then configuration order.
    static func alerts(for state: DashboardState) -> [Alert] {
        let banner = Style(.banner)
        var blocked: [Alert] = []
        var expired: [Alert] = []
        var leafOnly: [Alert] = []
        for (index, host) in state.hosts.enumerated() {
            guard let report = state.reports[index] else { continue }
            let name = host.displayName
            if report.status == .blocked {
                let line = [Span(" ✗ BLOCKED \(name): pinned clients refuse this host now — \(blockedReason(report))", banner)]
                blocked.append(Alert(line: line, summary: "✗ \(name)"))
            } else if report.alerts.contains(.expired) {
                let ago = -(report.leafDaysLeft ?? 0)
                let line = [Span(" ✗ EXPIRED \(name): the leaf certificate expired \(ago) day\(ago == 1 ? "" : "s") ago", banner)]
                expired.append(Alert(line: line, summary: "✗ \(name)"))
            }
            if report.status == .leafOnly {
                var text = " ⚠ LEAF ONLY \(name): only the leaf pin still matches: breaks at next renewal"
                if let days = report.leafDaysLeft {
                    text += days >= 0 ? " (leaf renews within \(days) day\(days == 1 ? "" : "s"))" : " (leaf already expired)"
                }
                leafOnly.append(Alert(line: [Span(text, banner)], summary: "⚠ \(name)"))
            }
        }
        return blocked + expired + leafOnly
    }

    /// At most `limit` lines; the last names every host it stands for, so
    /// a host that just turned bad is named on screen even in a long banner.
    static func capped(_ alerts: [Alert], limit: Int) -> [StyledLine] {
        guard limit > 0 else { return [] }
        guard alerts.count > limit else { return alerts.map(\.line) }
        let shown = alerts.prefix(limit - 1)
        let rest = alerts.dropFirst(limit - 1)
        let names = rest.map(\.summary).joined(separator: "  ")
        return shown.map(\.line) + [[Span(" … \(rest.count) more host\(rest.count == 1 ? "" : "s") need attention: \(names)", Style(.banner))]]
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
