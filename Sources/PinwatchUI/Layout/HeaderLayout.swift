import Foundation
import PinwatchCore

/// The two header lines: what is watched, how it stands, when it was looked at.
enum HeaderLayout {
    static let height = 2

    /// Everything fits at 120 columns; on a narrower screen the status
    /// counts that are zero go first, so the non-zero ones stay in view.
    static func titleLine(for state: DashboardState, width: Int = .max) -> StyledLine {
        let header = Style(.header)
        // A window of a fleet counts the fleet, not the rows loaded.
        let tally = state.fleetTally
        let counts = tally?.headlines ?? state.headlineCounts
        let hosts = tally?.hosts ?? state.hosts.count
        // The file's name, not its folder: the path can fill an 80-column line.
        let configName = (state.configPath as NSString).lastPathComponent
        var line: StyledLine = [
            Span(" pinwatch ", header.with(bold: true)),
            Span(" \(configName.isEmpty ? state.configPath : configName) ", header),
            Span(" \(hosts) host\(hosts == 1 ? "" : "s") ", header),
        ]
        // By severity first, the counts the on-call acts on; zero ones are left out.
        let severities = state.severityCounts
        for severity in [HostSeverity.critical, .unknown, .warning] {
            let count = tally.map { $0.severities[severity] ?? 0 } ?? severities.count(of: severity)
            guard count > 0 else { continue }
            line.append(Span(" \(count) \(severity.rawValue) ", header.with(bold: true)))
        }
        let acknowledged = tally?.acknowledged ?? state.alertingHosts.acknowledged.count
        if acknowledged > 0 { line.append(Span(" \(acknowledged) acknowledged ", header)) }
        // The words the rows show; a cause no host has is left out, and
        // the five statuses are counted even at zero while there is room.
        let shown = HostHeadline.headerOrder.filter { HostHeadline.alwaysCounted.contains($0) || counts[$0] != nil }
        let statusSpans = shown.map { headline in
            let tally = counts[headline]
            let word = Formatting.headline(headline, severity: tally?.worst).text
            return (count: tally?.count ?? 0, span: Span(" \(word) \(tally?.count ?? 0) ", header))
        }
        let full = line + statusSpans.map(\.span)
        if full.reduce(0, { $0 + DisplayWidth.of($1.text) }) <= width { return full }
        return line + statusSpans.filter { $0.count > 0 }.map(\.span)
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
        if let source = state.sourceNote {
            add(source, state.sourceProblem == nil ? .normal : Style(.warn))
        }
        if let note = state.historyNote {
            add(note, Style(.warn))
        }
        if let catalogue = state.catalogueNote {
            add(catalogue, state.catalogueStale ? Style(.warn) : Style(.dim))
        }
        if let proxy = state.proxyIndicator {
            add("⇄ \(proxy)", Style(.proxy))
        }
        if !state.filter.isEmpty {
            add("filter “\(state.filter)”", Style(.warn))
        }
        add(state.sortDescription)
        return [Span(" ")] + line
    }
}
