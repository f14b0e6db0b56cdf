import Foundation
import PinwatchCore

/// The host table: one row per host, columns that give way as the width shrinks.
enum TableLayout {
    enum Column: CaseIterable {
        case status, host, chain, tier, days, proxy, age, since
        /// The severity's one sentence, on screens wide enough for it.
        case reason

        var title: String {
            switch self {
            case .status: return "status"
            case .host: return "host"
            case .chain: return "chain"
            case .tier: return "tier"
            case .days: return "days"
            case .proxy: return "proxy"
            case .age: return "age"
            case .since: return "since"
            case .reason: return "reason"
            }
        }
    }

    static let minimumHostWidth = 12
    static let minimumReasonWidth = 20

    /// Column widths for `width` cells; optional columns are dropped, least
    /// useful first, until the host name gets a readable width. The host
    /// column takes no more than its widest label (`hostWidth`); what is
    /// left becomes a `reason` column, so a wide screen says why for every
    /// row (an error row's whole message included).
    static func columns(width: Int, chainLevels: Int, hostWidth wanted: Int = .max, sortedBy sorted: Column? = nil) -> [(Column, Int)] {
        let chainWidth = min(14, max(5, chainLevels * 3 - 1))
        var columns: [(Column, Int)] = [
            (.status, 11), (.host, 0), (.chain, chainWidth), (.tier, 7), (.days, 4), (.proxy, 5), (.age, 4), (.since, 5),
        ]
        // The sorted column's title carries an arrow; a narrow column grows to hold it.
        if let sorted, let index = columns.firstIndex(where: { $0.0 == sorted }), columns[index].1 > 0 {
            columns[index].1 = max(columns[index].1, sorted.title.count + 1)
        }
        let dropOrder: [Column] = [.since, .age, .proxy, .days, .tier]
        func hostWidth() -> Int {
            let fixed = columns.reduce(0) { $0 + $1.1 } + columns.count - 1
            return width - fixed - 1  // one cell of left margin
        }
        for column in dropOrder where hostWidth() < minimumHostWidth {
            columns.removeAll { $0.0 == column }
        }
        if let hostIndex = columns.firstIndex(where: { $0.0 == .host }) {
            let available = max(1, hostWidth())
            let host = min(available, max(minimumHostWidth, wanted))
            // A reason column narrower than a few words helps nobody.
            if available - host - 1 >= minimumReasonWidth {
                columns[hostIndex].1 = host
                columns.append((.reason, available - host - 1))
            } else {
                columns[hostIndex].1 = available
            }
        }
        return columns
    }

    /// Draws the column titles at `row`, the sorted one with its direction.
    static func drawHeader(into frame: inout Frame, row: Int, columns: [(Column, Int)], sorted: (column: Column, reversed: Bool)? = nil) {
        var column = 1
        for (kind, width) in columns {
            if let sorted, sorted.column == kind {
                frame.put(
                    kind.title + sortArrow(reversed: sorted.reversed), row: row, column: column, maxWidth: width,
                    style: Style(.header, bold: true))
            } else {
                frame.put(kind.title, row: row, column: column, maxWidth: width, style: Style(.dim, bold: true))
            }
            column += width + 1
        }
    }

    /// ▼ for a column's own order (what needs attention first on top), ▲ reversed.
    static func sortArrow(reversed: Bool) -> String { reversed ? "▲" : "▼" }

    /// The column a sort order sorts by; configuration order has none.
    static func column(sortedBy order: SortOrder) -> Column? {
        switch order {
        case .configuration: return nil
        case .worstFirst: return .status
        case .host: return .host
        case .chain: return .chain
        case .tier: return .tier
        case .days: return .days
        case .proxy: return .proxy
        case .age: return .age
        case .since: return .since
        case .reason: return .reason
        }
    }

    /// Draws one host's row at `row`.
    static func drawRow(
        into frame: inout Frame, row: Int, hostIndex: Int, state: DashboardState, columns: [(Column, Int)], now: Date
    ) {
        let host = state.hosts[hostIndex]
        let report = state.reports[hostIndex]
        var column = 1
        var remaining = columns[...]
        // With a reason column the error is said there, once; the chain,
        // tier and days cells then hold what they always hold (— for none),
        // so that their columns read and sort as one kind of value.
        let hasReason = columns.contains { $0.0 == .reason }
        while let (kind, width) = remaining.first {
            if kind == .chain, !hasReason, let report, report.levels.isEmpty, let failure = report.result.failure {
                // Without a reason column an error host's chain, tier and
                // days cells are the only place left to say why.
                let merged = remaining.prefix { failureArea.contains($0.0) }
                let mergedWidth = merged.reduce(0) { $0 + $1.1 } + merged.count - 1
                let line = failureLine(failure)
                frame.draw(
                    report.acknowledgement == nil ? line : line.map { Span($0.text, Style(.dim)) }, row: row, column: column,
                    maxWidth: mergedWidth)
                column += mergedWidth + 1
                remaining = remaining.dropFirst(merged.count)
                continue
            }
            var line = cell(kind, host: host, report: report, hostIndex: hostIndex, state: state, now: now, width: width)
            if let acknowledgement = report?.acknowledgement { line = acknowledged(line, kind, acknowledgement) }
            frame.draw(line, row: row, column: column, maxWidth: width)
            column += width + 1
            remaining = remaining.dropFirst()
        }
    }

    /// An acknowledged row: every cell dimmed, `~` instead of the
    /// severity's symbol (so monochrome themes still tell it apart), and
    /// the acknowledgement's reason in place of the verdict's.
    private static func acknowledged(_ line: StyledLine, _ kind: Column, _ acknowledgement: Acknowledgement) -> StyledLine {
        switch kind {
        case .status:
            let word = line.map(\.text).joined().split(separator: " ", maxSplits: 1).last.map(String.init) ?? ""
            return [Span("\(acknowledgedSymbol) \(word)", Style(.dim))]
        case .reason:
            return [Span("acknowledged: \(acknowledgement.reason)", Style(.dim))]
        default:
            return line.map { Span($0.text, Style(.dim)) }
        }
    }

    /// Before an acknowledged host's headline: snoozed, not fixed.
    static let acknowledgedSymbol = "~"

    /// The adjacent columns an error row spends on its reason.
    private static let failureArea: [Column] = [.chain, .tier, .days]

    /// `refused Connection refused (127.0.0.1:8443)`: the kind first, so it
    /// survives when the reason is cut short.
    static func failureLine(_ failure: ProbeFailure) -> StyledLine {
        [Span(failure.kind.rawValue, Style(.error, bold: true)), Span(" " + failure.message, Style(.dim))]
    }

    private static func cell(
        _ kind: Column, host: HostConfig, report: HostReport?, hostIndex: Int, state: DashboardState, now: Date, width: Int
    ) -> StyledLine {
        let waiting = [Span("…", Style(.dim))]
        switch kind {
        case .status:
            return [Formatting.status(of: report)]
        case .host:
            return [Span(state.hostLabels.label(hostIndex, width: width))]
        case .chain:
            guard let report else { return waiting }
            if report.levels.isEmpty { return [Span("—", Style(.dim))] }
            var line: StyledLine = []
            for level in report.levels {
                if !line.isEmpty { line.append(Span(" ")) }
                let text = Formatting.roleLetter(level.role) + Formatting.matchSymbol(level, pins: host.pins, series: report.series)
                line.append(Span(text, Formatting.roleStyle(level.role)))
            }
            return line
        case .tier:
            guard let report else { return waiting }
            if report.levels.isEmpty { return [Span("—", Style(.dim))] }
            let style: Style
            switch (report.matchedTiers.contains(.ca), report.matchedTiers.isEmpty) {
            case (true, _): style = Style(.ok)
            case (false, false): style = Style(.warn)
            case (false, true): style = report.status == .blocked ? Style(.critical) : Style(.dim)
            }
            return [Span(Formatting.tiers(report.matchedTiers), style)]
        case .days:
            guard let report else { return waiting }
            guard let expiry = report.earliestExpiry else { return [Span("—", Style(.dim))] }
            let style = Formatting.daysStyle(expiry.daysLeft, warnDays: state.warnDays, criticalDays: state.criticalDays)
            // `9I`: the intermediate (or `R` root) ends before the leaf, so
            // renewing the leaf will not help.
            let marker = expiry.isLeaf ? "" : Formatting.roleLetter(expiry.role)
            return [Span("\(expiry.daysLeft)\(marker)", style)]
        case .proxy:
            guard let report else { return waiting }
            if report.proxy.intercepted { return [Span("MITM", Style(.critical, bold: true))] }
            if report.proxy.detected { return [Span("via", Style(.proxy))] }
            return [Span("—", Style(.dim))]
        case .age:
            guard let report else { return waiting }
            return [Span(Formatting.duration(now.timeIntervalSince(report.result.finishedAt)), Style(.dim))]
        case .since:
            guard let since = state.statusSince[hostIndex] else { return waiting }
            return [Span(Formatting.duration(now.timeIntervalSince(since)), Style(.dim))]
        case .reason:
            guard let report else { return waiting }
            let style = report.headline == .error ? Style(.error) : report.severity == .ok ? Style(.dim) : Style(.normal)
            // A host of several probes says how they agree; a reason that
            // names their divergence already leads with it.
            if let agreement = report.variantAgreement, !report.reason.hasPrefix(agreement) {
                return [Span(agreement + " · ", Style(.dim)), Span(report.reason, style)]
            }
            return [Span(report.reason, style)]
        }
    }

    /// Most chain levels among `hostIndices`, to size the chain column.
    ///
    /// An error row counts as three levels: the width that lets its kind
    /// (`refused`, `timeout`) show whole even when the narrow layout has
    /// dropped the tier and days columns it otherwise spills into.
    /// (Only the narrow layout, without a reason column, merges them.)
    static func maxLevels(_ hostIndices: [Int], state: DashboardState) -> Int {
        hostIndices.reduce(0) { widest, index in
            guard let report = state.reports[index] else { return widest }
            let levels = report.levels.isEmpty && report.result.failure != nil ? 3 : report.levels.count
            return max(widest, levels)
        }
    }
}
