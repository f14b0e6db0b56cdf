import Foundation
import PinwatchCore

/// One column of the host table, in one place: its title, its width rule,
/// when a narrow screen drops it, what it sorts by and what its cells say.
/// `TableColumn.all` is the table left to right: the layout, the dropping,
/// the header, the rows, the sort and `<` `>` all loop over it, and a test
/// holds README's table of columns to it. A new column is one row here,
/// its `SortOrder` case (the column's name in the state, as htop's
/// `ProcessField` is beside its `Process_fields[]`) and README's row.
struct TableColumn: Sendable {
    enum Width: Sendable {
        case fixed(Int)
        /// From the most chain levels among the rows shown (`TableLayout.maxLevels`).
        case levels(@Sendable (Int) -> Int)
        /// What the other columns leave, at least `least` (columns are
        /// dropped until it has that), and no wider than the widest label.
        case labels(least: Int)
        /// What the `labels` column leaves; shown only when that is `least` or more.
        case leftover(least: Int)
    }

    /// What an error row without a chain does with this column's cell.
    enum Failure: Sendable {
        /// Its own cell, as for any row.
        case own
        /// Without a `states` column on screen, adjacent `shared` columns
        /// become one cell that says the failure (their own cells would
        /// all read "—").
        case shared
        /// Its cell states the failure; while it is shown, `shared`
        /// columns keep their own cells.
        case states
    }

    /// The row a cell is drawn in.
    struct Row {
        let state: DashboardState
        let hostIndex: Int
        let host: HostConfig
        /// nil: the host is still waiting for its first report.
        let report: HostReport?
        let now: Date
    }

    let title: String
    let width: Width
    /// Narrow screens drop the lowest rank first; nil: never dropped.
    let dropRank: Int?
    /// The order that sorts the rows by this column.
    let sortOrder: SortOrder
    /// The host's value in that order; nil sorts after every value.
    let sortValue: @Sendable (DashboardState, Int) -> DashboardState.SortValue?
    /// The header's words for this order, forward and reversed, when
    /// "by TITLE" is not what a person would say.
    var orderWords: (forward: String, reversed: String)? = nil
    var failure = Failure.own
    /// The cell for a row, `width` cells wide.
    let cell: @Sendable (Row, Int) -> StyledLine
    /// An acknowledged row's cell from its own; nil: the cell dimmed.
    var acknowledged: (@Sendable (StyledLine, Acknowledgement) -> StyledLine)? = nil

    /// Left to right.
    static let all: [TableColumn] = [
        TableColumn(
            title: "status", width: .fixed(11), dropRank: nil, sortOrder: .worstFirst,
            sortValue: reported { report, _ in .number(-Double(report.severity.rank)) },
            orderWords: ("worst first", "best first"),
            cell: { row, _ in [Formatting.status(of: row.report)] },
            acknowledged: { line, _ in
                // `~` instead of the severity's symbol, so monochrome themes still tell it apart.
                let word = line.map(\.text).joined().split(separator: " ", maxSplits: 1).last.map(String.init) ?? ""
                return [Span("\(TableLayout.acknowledgedSymbol) \(word)", Style(.dim))]
            }),

        TableColumn(
            title: "host", width: .labels(least: 12), dropRank: nil, sortOrder: .host,
            sortValue: reported { _, host in .text(host.displayName.lowercased()) },
            cell: { row, width in [Span(row.state.hostLabels.label(row.hostIndex, width: width))] }),

        // Three cells a level (`L✓ `), no narrower than its title, no wider than 14.
        TableColumn(
            title: "chain", width: .levels({ min(14, max(5, $0 * 3 - 1)) }), dropRank: nil, sortOrder: .chain,
            // Alike chains side by side: the row's roles and match symbols.
            sortValue: reported { report, host in .text(report.levels.map { levelText($0, report, host) }.joined(separator: " ")) },
            failure: .shared,
            cell: { row, _ in
                guard let report = row.report else { return waiting }
                if report.levels.isEmpty { return dash }
                var line: StyledLine = []
                for level in report.levels {
                    if !line.isEmpty { line.append(Span(" ")) }
                    line.append(Span(levelText(level, report, row.host), Formatting.roleStyle(level.role)))
                }
                return line
            }),

        TableColumn(
            title: "tier", width: .fixed(7), dropRank: 4, sortOrder: .tier,
            // What a renewal leaves matching, least first: no pin matched, then
            // the leaf alone (breaks at the next renewal), then a CA pin (with
            // or without the leaf's). Within a tier, the worse severity first:
            // a blocked host before an unpinned one.
            sortValue: reported { report, _ in
                let tier: Int
                switch (report.matchedTiers.contains(.ca), report.matchedTiers.contains(.leaf)) {
                case (false, false): tier = 0
                case (false, true): tier = 1
                case (true, _): tier = 2
                }
                return .number(Double(tier * 10 - report.severity.rank))
            },
            failure: .shared,
            cell: { row, _ in
                guard let report = row.report else { return waiting }
                if report.levels.isEmpty { return dash }
                let style: Style
                switch (report.matchedTiers.contains(.ca), report.matchedTiers.isEmpty) {
                case (true, _): style = Style(.ok)
                case (false, false): style = Style(.warn)
                case (false, true): style = report.status == .blocked ? Style(.critical) : Style(.dim)
                }
                return [Span(Formatting.tiers(report.matchedTiers), style)]
            }),

        TableColumn(
            title: "days", width: .fixed(4), dropRank: 3, sortOrder: .days,
            sortValue: reported { report, _ in .number(report.earliestExpiry.map { Double($0.daysLeft) } ?? .infinity) },
            failure: .shared,
            cell: { row, _ in
                guard let report = row.report else { return waiting }
                guard let expiry = report.earliestExpiry else { return dash }
                let style = Formatting.daysStyle(expiry.daysLeft, warnDays: row.state.warnDays, criticalDays: row.state.criticalDays)
                // `9I`: the intermediate (or `R` root) ends before the leaf, so
                // renewing the leaf will not help.
                let marker = expiry.isLeaf ? "" : Formatting.roleLetter(expiry.role)
                return [Span("\(expiry.daysLeft)\(marker)", style)]
            }),

        TableColumn(
            title: "proxy", width: .fixed(5), dropRank: 2, sortOrder: .proxy,
            sortValue: reported { report, _ in .number(report.proxy.intercepted ? 0 : report.proxy.detected ? 1 : 2) },
            cell: { row, _ in
                guard let report = row.report else { return waiting }
                if report.proxy.intercepted { return [Span("MITM", Style(.critical, bold: true))] }
                if report.proxy.detected { return [Span("via", Style(.proxy))] }
                return dash
            }),

        TableColumn(
            title: "age", width: .fixed(4), dropRank: 1, sortOrder: .age,
            sortValue: reported { report, _ in .number(report.result.finishedAt.timeIntervalSince1970) },
            cell: { row, _ in
                guard let report = row.report else { return waiting }
                return [Span(Formatting.duration(row.now.timeIntervalSince(report.result.finishedAt)), Style(.dim))]
            }),

        // Latest change first; a host with no change seen yet has no value,
        // whether or not it has a report.
        TableColumn(
            title: "since", width: .fixed(5), dropRank: 0, sortOrder: .since,
            sortValue: { state, index in state.statusSince[index].map { .number(-$0.timeIntervalSince1970) } },
            cell: { row, _ in
                guard let since = row.state.statusSince[row.hostIndex] else { return waiting }
                return [Span(Formatting.duration(row.now.timeIntervalSince(since)), Style(.dim))]
            }),

        // The severity's one sentence, on screens wide enough for it (an
        // error row's whole message included).
        TableColumn(
            title: "reason", width: .leftover(least: 20), dropRank: nil, sortOrder: .reason,
            sortValue: reported { report, _ in .text(report.reason.lowercased()) },
            failure: .states,
            cell: { row, _ in
                guard let report = row.report else { return waiting }
                let style = report.headline == .error ? Style(.error) : report.severity == .ok ? Style(.dim) : Style(.normal)
                // `ct`: Certificate Transparency logged a certificate for the
                // host (bold when one breaks a release); the detail view lists them.
                var line = ctMark(report)
                // A host of several probes says how they agree; a reason that
                // names their divergence already leads with it.
                if let agreement = report.variantAgreement, !report.reason.hasPrefix(agreement) {
                    line.append(Span(agreement + " · ", Style(.dim)))
                }
                line.append(Span(report.reason, style))
                return line
            },
            // Why it was acknowledged, in place of the verdict's reason.
            acknowledged: { _, acknowledgement in [Span("acknowledged: \(acknowledgement.reason)", Style(.dim))] }),
    ]

    /// The column `order` sorts by; configuration order has none.
    static func sorting(_ order: SortOrder) -> TableColumn? {
        all.first { $0.sortOrder == order }
    }

    private static let waiting: StyledLine = [Span("…", Style(.dim))]
    private static let dash: StyledLine = [Span("—", Style(.dim))]

    /// The value of a host with a report; one still waiting has none.
    private static func reported(
        _ value: @escaping @Sendable (HostReport, HostConfig) -> DashboardState.SortValue
    ) -> @Sendable (DashboardState, Int) -> DashboardState.SortValue? {
        { state, index in state.reports[index].map { value($0, state.hosts[index]) } }
    }

    /// `ct ` before the reason while a logged certificate for the host is
    /// listed: bold while one of them breaks a release.
    static func ctMark(_ report: HostReport) -> StyledLine {
        guard let ct = report.ct, !ct.logged.isEmpty || !ct.misbehavingLogs.isEmpty else { return [] }
        let breaks = ct.logged.contains { !$0.verdict.breaks.isEmpty }
        return [Span("ct", breaks ? Style(.warn, bold: true) : Style(.dim)), Span(" ")]
    }

    /// `L✓`: a level's role and whether a pin matched it.
    private static func levelText(_ level: LevelReport, _ report: HostReport, _ host: HostConfig) -> String {
        Formatting.roleLetter(level.role) + Formatting.matchSymbol(level, pins: host.pins, series: report.series)
    }
}

extension TableColumn: Equatable {
    /// A column is its title: two columns never share one (a test holds it).
    static func == (left: TableColumn, right: TableColumn) -> Bool { left.title == right.title }
}
