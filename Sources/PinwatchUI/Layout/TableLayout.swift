import Foundation
import PinwatchCore

/// The host table: one row per host, columns that give way as the width shrinks.
enum TableLayout {
    /// Column widths for `width` cells, in `TableColumn.all`'s order.
    /// Columns are dropped, lowest rank first, until the `labels` column
    /// gets its least width; it takes no more than the widest label
    /// (`labelWidth`), and what is left becomes the leftover column, so a
    /// wide screen says why for every row.
    static func columns(
        width: Int, chainLevels: Int, labelWidth wanted: Int = .max, sortedBy sorted: TableColumn? = nil
    ) -> [(TableColumn, Int)] {
        var columns = TableColumn.all.map { ($0, $0.width.cells(chainLevels: chainLevels)) }
        // The sorted column's title carries an arrow; a narrow column grows to hold it.
        if let sorted, let index = columns.firstIndex(where: { $0.0 == sorted }), columns[index].1 > 0 {
            columns[index].1 = max(columns[index].1, sorted.title.count + 1)
        }
        /// What the other columns leave to the labels and the leftover: the
        /// width less one cell of left margin and each column and its gap.
        func left() -> Int {
            columns.reduce(width - 1) { $1.0.width.sharesWhatIsLeft ? $0 : $0 - $1.1 - 1 }
        }
        let labelsLeast = TableColumn.all.lazy.compactMap(\.width.labelsLeast).first ?? 0
        for column in dropOrder where left() < labelsLeast {
            columns.removeAll { $0.0 == column }
        }
        let available = max(1, left())
        let labels = min(available, max(labelsLeast, wanted))
        let room = available - labels - 1
        // A leftover column narrower than a few words helps nobody.
        columns.removeAll { $0.0.width.leftoverLeast.map { room < $0 } ?? false }
        let hasLeftover = columns.contains { $0.0.width.leftoverLeast != nil }
        for index in columns.indices {
            switch columns[index].0.width {
            case .labels: columns[index].1 = hasLeftover ? labels : available
            case .leftover: columns[index].1 = room
            case .fixed, .levels: break
            }
        }
        return columns
    }

    /// The columns a narrow screen gives up, the first given up first.
    static let dropOrder = TableColumn.all.filter { $0.dropRank != nil }.sorted { ($0.dropRank ?? 0) < ($1.dropRank ?? 0) }

    /// Draws the column titles at `row`, the sorted one with its direction.
    static func drawHeader(
        into frame: inout Frame, row: Int, columns: [(TableColumn, Int)], sorted: (column: TableColumn, reversed: Bool)? = nil
    ) {
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

    /// Draws one host's row at `row`.
    static func drawRow(
        into frame: inout Frame, row: Int, hostIndex: Int, state: DashboardState, columns: [(TableColumn, Int)], now: Date
    ) {
        let hostRow = TableColumn.Row(
            state: state, hostIndex: hostIndex, host: state.hosts[hostIndex], report: state.reports[hostIndex], now: now)
        let report = hostRow.report
        var column = 1
        var remaining = columns[...]
        // With a column that states the error it is said there, once; the
        // columns that would share it then hold what they always hold (—
        // for none), so that they read and sort as one kind of value.
        let stated = columns.contains { $0.0.failure == .states }
        while let (kind, width) = remaining.first {
            if kind.failure == .shared, !stated, let report, report.levels.isEmpty, let failure = report.result.failure {
                // Without it, the adjacent shared cells are the only place left to say why.
                let merged = remaining.prefix { $0.0.failure == .shared }
                let mergedWidth = merged.reduce(0) { $0 + $1.1 } + merged.count - 1
                let line = failureLine(failure)
                frame.draw(
                    report.acknowledgement == nil ? line : line.map { Span($0.text, Style(.dim)) }, row: row, column: column,
                    maxWidth: mergedWidth)
                column += mergedWidth + 1
                remaining = remaining.dropFirst(merged.count)
                continue
            }
            var line = kind.cell(hostRow, width)
            // An acknowledged row: every cell dimmed, unless its column says otherwise.
            if let acknowledgement = report?.acknowledgement {
                line = kind.acknowledged?(line, acknowledgement) ?? line.map { Span($0.text, Style(.dim)) }
            }
            frame.draw(line, row: row, column: column, maxWidth: width)
            column += width + 1
            remaining = remaining.dropFirst()
        }
    }

    /// Before an acknowledged host's headline: snoozed, not fixed.
    static let acknowledgedSymbol = "~"

    /// `refused Connection refused (127.0.0.1:8443)`: the kind first, so it
    /// survives when the reason is cut short.
    static func failureLine(_ failure: ProbeFailure) -> StyledLine {
        [Span(failure.kind.rawValue, Style(.error, bold: true)), Span(" " + failure.message, Style(.dim))]
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

extension TableColumn.Width {
    /// The labels' and the leftover's widths are what the others leave.
    fileprivate var sharesWhatIsLeft: Bool {
        switch self {
        case .labels, .leftover: true
        case .fixed, .levels: false
        }
    }

    /// The width before sharing: 0 for the labels and the leftover.
    fileprivate func cells(chainLevels: Int) -> Int {
        switch self {
        case .fixed(let cells): cells
        case .levels(let rule): rule(chainLevels)
        case .labels, .leftover: 0
        }
    }

    fileprivate var labelsLeast: Int? {
        if case .labels(let least) = self { least } else { nil }
    }

    fileprivate var leftoverLeast: Int? {
        if case .leftover(let least) = self { least } else { nil }
    }
}
