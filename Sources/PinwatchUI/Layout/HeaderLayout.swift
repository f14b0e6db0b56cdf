import Foundation
import PinwatchCore

/// The two header lines: what is watched, how it stands, when it was looked at.
enum HeaderLayout {
    static let height = 2

    static func titleLine(for state: DashboardState) -> StyledLine {
        let header = Style(.header)
        let counts = state.statusCounts
        var line: StyledLine = [
            Span(" pinwatch ", header.with(bold: true)),
            Span(" \(state.configPath) ", header),
            Span(" \(state.hosts.count) host\(state.hosts.count == 1 ? "" : "s") ", header),
        ]
        // By severity first, the counts the on-call acts on; zero ones are left out.
        let severities = state.severityCounts
        for severity in [HostSeverity.critical, .unknown, .warning] {
            guard let count = severities[severity], count > 0 else { continue }
            line.append(Span(" \(count) \(severity.rawValue) ", header.with(bold: true)))
        }
        let order: [HostStatus] = [.ok, .leafOnly, .blocked, .error, .unpinned]
        for status in order {
            let symbol = Formatting.status(status).text
            line.append(Span(" \(symbol) \(counts[status] ?? 0) ", header))
        }
        return line
    }

    static func statusLine(for state: DashboardState, now: Date, dated: Bool = false) -> StyledLine {
        var line: StyledLine = []
        func add(_ text: String, _ style: Style = Style(.dim)) {
            if !line.isEmpty { line.append(Span(" · ", Style(.dim))) }
            line.append(Span(text, style))
        }
        if let finished = state.lastCycleFinishedAt {
            let when =
                dated ? Formatting.dateAndZone(finished, timeZone: state.timeZone) : Formatting.clock(finished, timeZone: state.timeZone)
            add("last cycle \(when)", .normal)
        } else {
            add("no cycle completed yet")
        }
        if state.isProbing {
            add("probing \(state.cycleCompleted)/\(state.cycleTotal)", Style(.warn))
        } else if let next = state.nextCycleAt {
            add("next in \(Formatting.duration(next.timeIntervalSince(now)))")
        }
        if let proxy = state.proxyIndicator {
            add("⇄ \(proxy)", Style(.proxy))
        }
        if !state.filter.isEmpty {
            add("filter “\(state.filter)”", Style(.warn))
        }
        add(state.sortOrder == .worstFirst ? "worst first" : "config order")
        return [Span(" ")] + line
    }
}
