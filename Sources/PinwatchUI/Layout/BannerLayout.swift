import Foundation
import PinwatchCore

/// The alert banner: the hosts that need the on-call, in words.
///
/// It works from `DashboardState.alertingHosts`, worked out once per change
/// of results, and builds only the lines it shows: with thousands of hosts
/// in trouble a redraw must not format thousands of lines.
enum BannerLayout {
    /// Names listed in a grouped line before "+N more"; more would be cut
    /// by the widest terminal anyway.
    static let groupedNameLimit = 40

    /// One line per host: blocked, then expired, then leaf_only, each in
    /// configuration order. The snapshot shows all of them.
    static func lines(for state: DashboardState) -> [StyledLine] {
        let hosts = state.alertingHosts
        return hosts.blocked.map { blockedLine(state, $0) }
            + hosts.expired.map { expiredLine(state, $0) }
            + hosts.leafOnly.map { leafOnlyLine(state, $0) }
    }

    /// The live screen's banner in at most `limit` lines: one line per host
    /// while they fit, else one line per kind of trouble naming its hosts.
    ///
    /// Grouping keeps a `leaf_only` host on screen however many hosts are
    /// blocked: "breaks at the next renewal" is the warning pinwatch exists
    /// for, and it must never hide behind "… and N more".
    static func live(for state: DashboardState, limit: Int) -> [StyledLine] {
        guard limit > 0 else { return [] }
        let hosts = state.alertingHosts
        guard hosts.count > limit else { return lines(for: state) }
        return Array(grouped(state, hosts).prefix(limit))
    }

    /// How many lines `live` draws, without formatting any of them.
    static func liveCount(for state: DashboardState, limit: Int) -> Int {
        guard limit > 0 else { return 0 }
        let hosts = state.alertingHosts
        if hosts.count <= limit { return hosts.count }
        let kinds = [hosts.leafOnly, hosts.blocked, hosts.expired].filter { !$0.isEmpty }.count
        return min(limit, kinds)
    }

    /// One line per kind: leaf_only first, then blocked, then expired.
    private static func grouped(_ state: DashboardState, _ hosts: AlertingHosts) -> [StyledLine] {
        let banner = Style(.banner)
        func names(_ indices: [Int], _ label: (Int) -> String) -> String {
            let shown = indices.prefix(groupedNameLimit).map(label).joined(separator: ", ")
            let more = indices.count - min(indices.count, groupedNameLimit)
            return more > 0 ? shown + " +\(more) more" : shown
        }
        var lines: [StyledLine] = []
        if !hosts.leafOnly.isEmpty {
            let list = names(hosts.leafOnly) { index in
                let days = state.reports[index]?.leafDaysLeft.map { $0 >= 0 ? " (\($0)d)" : " (expired)" } ?? ""
                return state.hosts[index].displayName + days
            }
            lines.append([Span(" ⚠ LEAF ONLY ×\(hosts.leafOnly.count): only the leaf pin still matches: breaks at next renewal — \(list)", banner)])
        }
        if !hosts.blocked.isEmpty {
            let list = names(hosts.blocked) { state.hosts[$0].displayName }
            lines.append([Span(" ✗ BLOCKED ×\(hosts.blocked.count): pinned clients refuse these hosts now — \(list)", banner)])
        }
        if !hosts.expired.isEmpty {
            let list = names(hosts.expired) { state.hosts[$0].displayName }
            lines.append([Span(" ✗ EXPIRED ×\(hosts.expired.count): leaf certificate expired — \(list)", banner)])
        }
        return lines
    }

    private static func blockedLine(_ state: DashboardState, _ index: Int) -> StyledLine {
        let reason = state.reports[index].map(blockedReason) ?? ""
        return [Span(" ✗ BLOCKED \(state.hosts[index].displayName): pinned clients refuse this host now — \(reason)", Style(.banner))]
    }

    private static func expiredLine(_ state: DashboardState, _ index: Int) -> StyledLine {
        let ago = -(state.reports[index]?.leafDaysLeft ?? 0)
        return [Span(" ✗ EXPIRED \(state.hosts[index].displayName): the leaf certificate expired \(ago) day\(ago == 1 ? "" : "s") ago", Style(.banner))]
    }

    private static func leafOnlyLine(_ state: DashboardState, _ index: Int) -> StyledLine {
        var text = " ⚠ LEAF ONLY \(state.hosts[index].displayName): only the leaf pin still matches: breaks at next renewal"
        if let days = state.reports[index]?.leafDaysLeft {
            text += days >= 0 ? " (leaf renews within \(days) day\(days == 1 ? "" : "s"))" : " (leaf already expired)"
        }
        return [Span(text, Style(.banner))]
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
