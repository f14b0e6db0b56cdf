import Foundation
import PinwatchCore

/// The alert banner: every host whose severity is not ok, with its reason.
///
/// Severity and reason come from Core's verdict; this file only chooses
/// the words of the tag (BLOCKED, LEAF ONLY…) and the layout. It works from
/// `DashboardState.alertingHosts`, worked out once per change of results,
/// and builds only the lines it shows: with thousands of hosts in trouble a
/// redraw must not format thousands of lines.
enum BannerLayout {
    /// Names listed in a grouped line before "+N more"; more would be cut
    /// by the widest terminal anyway.
    static let groupedNameLimit = 40

    /// One line per host, worst first (critical, unknown, warning), each
    /// in configuration order. The snapshot shows all of them.
    static func lines(for state: DashboardState) -> [StyledLine] {
        sourceLines(state) + state.alertingHosts.worstFirst.map { hostLine(state, $0) }
    }

    /// Where the verdicts come from cannot answer (`watch --prometheus`):
    /// said first, above any host, since every row may be stale.
    private static func sourceLines(_ state: DashboardState) -> [StyledLine] {
        state.sourceProblem.map { [[Span(" ✗ \($0)", Style(.banner, bold: true))]] } ?? []
    }

    /// The live screen's banner in at most `limit` lines: one line per host
    /// while they fit, else one line per severity naming its hosts.
    ///
    /// A warning line with `leaf_only` hosts is never crowded out: "breaks
    /// at the next renewal" is the warning pinwatch exists for, and it must
    /// not hide behind the critical lines of a small terminal.
    static func live(for state: DashboardState, limit: Int) -> [StyledLine] {
        let source = Array(sourceLines(state).prefix(max(0, limit)))
        return source + hostsLive(for: state, limit: limit - source.count)
    }

    private static func hostsLive(for state: DashboardState, limit: Int) -> [StyledLine] {
        guard limit > 0 else { return [] }
        let hosts = state.alertingHosts
        guard hosts.count > limit else { return hosts.worstFirst.map { hostLine(state, $0) } }
        var groups = grouped(state, hosts)
        if groups.count > limit, let warningLine = groups.last, hosts.warning.contains(where: { isLeafOnly(state, $0) }) {
            groups = Array(groups.prefix(limit - 1)) + [warningLine]
        }
        return Array(groups.prefix(limit))
    }

    /// How many lines `live` draws, without formatting any of them.
    static func liveCount(for state: DashboardState, limit: Int) -> Int {
        let source = min(max(0, limit), state.sourceProblem == nil ? 0 : 1)
        return source + hostsLiveCount(for: state, limit: limit - source)
    }

    private static func hostsLiveCount(for state: DashboardState, limit: Int) -> Int {
        guard limit > 0 else { return 0 }
        let hosts = state.alertingHosts
        if hosts.count <= limit { return hosts.count }
        let kinds = [hosts.critical, hosts.unknown, hosts.warning].filter { !$0.isEmpty }.count
        return min(limit, kinds)
    }

    /// By headline, as the host's row and its own banner line name it.
    private static func isLeafOnly(_ state: DashboardState, _ index: Int) -> Bool {
        state.reports[index]?.headline == .leafOnly
    }

    /// One line per severity, worst first; leaf_only hosts lead their line.
    private static func grouped(_ state: DashboardState, _ hosts: AlertingHosts) -> [StyledLine] {
        // A window of a fleet names the hosts loaded and counts the fleet's.
        func total(_ severity: HostSeverity, _ indices: [Int]) -> Int {
            max(indices.count, state.fleetTally?.severities[severity] ?? 0)
        }
        func names(_ indices: [Int], of severity: HostSeverity) -> String {
            let shown = indices.prefix(groupedNameLimit).map { index -> String in
                let report = state.reports[index]
                var note = tag(for: report).lowercased()
                if report?.headline == .leafOnly, let days = report?.daysLeft { note += days >= 0 ? ", \(days)d" : ", expired" }
                return "\(state.hosts[index].displayName) (\(note))"
            }.joined(separator: ", ")
            let more = total(severity, indices) - min(indices.count, groupedNameLimit)
            return more > 0 ? shown + " +\(more) more" : shown
        }
        var lines: [StyledLine] = []
        if !hosts.critical.isEmpty {
            lines.append([
                Span(
                    " ✗ CRITICAL ×\(total(.critical, hosts.critical)): pinned clients fail now or within days — \(names(hosts.critical, of: .critical))",
                    Style(.banner))
            ])
        }
        if !hosts.unknown.isEmpty {
            lines.append([
                Span(
                    " ! UNKNOWN ×\(total(.unknown, hosts.unknown)): could not be probed — \(names(hosts.unknown, of: .unknown))",
                    Style(.banner))
            ])
        }
        if !hosts.warning.isEmpty {
            let leafOnlyFirst = hosts.warning.filter { isLeafOnly(state, $0) } + hosts.warning.filter { !isLeafOnly(state, $0) }
            lines.append([
                Span(
                    " ⚠ WARNING ×\(total(.warning, hosts.warning)): \(warningTitle(state, leafOnlyFirst)) — \(names(leafOnlyFirst, of: .warning))",
                    Style(.banner))
            ])
        }
        return lines
    }

    /// The warning line's title names every kind it holds, by headline and
    /// count (`1 LEAF ONLY: break at next renewal, 1 intermediate pool,
    /// 1 chain changed`): one member's words over the others would tell the
    /// on-call the wrong thing to do about them.
    private static func warningTitle(_ state: DashboardState, _ indices: [Int]) -> String {
        var kinds: [(headline: HostHeadline?, count: Int)] = []
        for index in indices {
            let headline = state.reports[index]?.headline
            if let at = kinds.firstIndex(where: { $0.headline == headline }) {
                kinds[at].count += 1
            } else {
                kinds.append((headline, 1))
            }
        }
        return kinds.map { kind in
            switch kind.headline {
            case .leafOnly: return "\(kind.count) LEAF ONLY: break at next renewal"
            case .expiring: return "\(kind.count) expiring soon"
            case let headline?: return "\(kind.count) \(headline.tag.lowercased())"
            case nil: return "\(kind.count) other"
            }
        }.joined(separator: ", ")
    }

    /// ` ✗ BLOCKED host:port: reason`
    private static func hostLine(_ state: DashboardState, _ index: Int) -> StyledLine {
        guard let report = state.reports[index] else { return [] }
        let symbol = report.headline.symbol(at: report.severity)
        let text = " \(symbol) \(tag(for: report)) \(state.hosts[index].displayName): \(report.reason)"
        return [Span(text, Style(.banner))]
    }

    /// A name for what is wrong, in the status and alert words of DESIGN §5.
    static func tag(for report: HostReport?) -> String {
        report?.headline.tag ?? ""
    }
}
