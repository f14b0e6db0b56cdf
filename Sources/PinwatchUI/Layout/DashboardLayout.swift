import Foundation
import PinwatchCore

/// The one renderer: (state, size, now) → Frame.
///
/// The live dashboard and `pinwatch snapshot --format text|ansi` both come
/// from here, so a runbook's snapshot shows exactly what the on-call saw.
package enum DashboardLayout {
    /// Below this the table cannot say anything useful; a message is drawn instead.
    package static let minimumWidth = 40
    package static let minimumHeight = 8
    /// Banner lines on the live screen before they group by kind: a
    /// quarter of the screen, at least three.
    static func liveBannerLimit(height: Int) -> Int { max(3, height / 4) }

    /// The live screen at `width`×`height`, with what it measured handed
    /// to the state: the controller's one call per paint.
    package static func paint(_ state: inout DashboardState, width: Int, height: Int, now: Date) -> Frame {
        let (frame, metrics) = layout(for: state, width: width, height: height, now: now)
        state.apply(metrics)
        return frame
    }

    /// The live screen at `width`×`height`.
    package static func frame(for state: DashboardState, width: Int, height: Int, now: Date) -> Frame {
        layout(for: state, width: width, height: height, now: now).frame
    }

    /// The frame and its measures from one pass: the detail or client
    /// view's lines are built once, for drawing and for their count.
    static func layout(for state: DashboardState, width: Int, height: Int, now: Date) -> (frame: Frame, metrics: LayoutMetrics) {
        let scrolled: [StyledLine]
        switch state.view {
        case .detail(let hostIndex): scrolled = DetailLayout.lines(for: state, hostIndex: hostIndex, now: now)
        case .clients: scrolled = ClientViewLayout.lines(for: state)
        case .table, .help: scrolled = []
        }
        let metrics = LayoutMetrics(
            tableCapacity: tableCapacity(for: state, height: height),
            firstHostRow: HeaderLayout.height + BannerLayout.liveCount(for: state, limit: bannerLimit(for: state, height: height)) + 1,
            scrolledCapacity: detailCapacity(for: state, height: height), scrolledLineCount: scrolled.count, paintedAt: now)
        var frame = frame(for: state, width: width, height: height, now: now, scrolled: scrolled)
        if state.asciiOnly { frame.useASCIIOnly() }
        return (frame, metrics)
    }

    private static func frame(for state: DashboardState, width: Int, height: Int, now: Date, scrolled: [StyledLine]) -> Frame {
        var frame = Frame(width: width, height: height)
        guard width >= minimumWidth, height >= minimumHeight else {
            drawTooSmall(into: &frame)
            return frame
        }
        drawHeader(state, into: &frame, now: now)
        var position: String?
        if state.view != .table || state.isEditingFilter || state.acknowledgementPrompt != nil {
            // Details and help have their own lines; the filter prompt its own.
        } else {
            position = tablePosition(state, capacity: tableCapacity(for: state, height: height))
        }
        let footer = footerLines(for: state, width: width, position: position)
        for (offset, line) in footer.enumerated() {
            frame.draw(line, row: height - footer.count + offset)
        }
        switch state.view {
        case .detail(let hostIndex):
            drawDetail(state, hostIndex: hostIndex, lines: scrolled, into: &frame, bodyHeight: height - HeaderLayout.height - footer.count)
        case .clients:
            drawScrolled(
                title: " clients: what each release sees now", hint: "   c/Esc back · ↑↓ PgUp PgDn scroll", lines: scrolled, state: state,
                into: &frame, bodyHeight: height - HeaderLayout.height - footer.count)
        case .table, .help:
            let banner = BannerLayout.live(for: state, limit: bannerLimit(for: state, height: height))
            drawBanner(banner, into: &frame, startRow: HeaderLayout.height)
            let top = HeaderLayout.height + banner.count
            drawTable(state, into: &frame, top: top, rowCount: height - top - 1 - footer.count, highlight: true, now: now)
            if state.view == .help { HelpLayout.draw(into: &frame) }
        }
        return frame
    }

    /// The snapshot: the same layout, tall enough for every row, without
    /// selection bar or key footer. Narrower than `minimumWidth` is widened.
    package static func snapshotFrame(for state: DashboardState, width: Int, now: Date) -> Frame {
        var whole = Frame(width: 0, height: 0)
        snapshotFrames(for: state, width: width, now: now, rowsPerFrame: .max) { frame, _ in whole = frame }
        return whole
    }

    /// The snapshot in frames of at most `rowsPerFrame` table rows and as
    /// many banner lines, handed to `body` in order with the rows of each
    /// that belong to the screen:
    /// printed one after the other they are `snapshotFrame`'s rows, and no
    /// frame holds every row of a large fleet.
    package static func snapshotFrames(
        for state: DashboardState, width: Int, now: Date, rowsPerFrame: Int, _ body: (Frame, Range<Int>) -> Void
    ) {
        let width = max(width, minimumWidth)
        let block = max(1, rowsPerFrame)
        var table = state
        table.view = .table
        let banner = BannerLayout.lines(for: table)
        let rows = table.visibleHostIndices.count
        let message = table.footerMessage.map { [[Span(" " + $0, Style(.warn))]] } ?? []
        // A fleet's banner (a line per troubled host) can be as long as its
        // table: it too is drawn a block at a time, the header above the first.
        var bannerShown = 0
        func bannerFrame(_ lines: Int, tableRows: Int) -> (Frame, top: Int) {
            let start = bannerShown == 0 ? HeaderLayout.height : 0
            var frame = Frame(width: width, height: start + lines + tableRows)
            if bannerShown == 0 { drawHeader(table, into: &frame, now: now, dated: true) }
            drawBanner(Array(banner[bannerShown..<(bannerShown + lines)]), into: &frame, startRow: start)
            bannerShown += lines
            return (frame, start + lines)
        }
        while banner.count - bannerShown > block {
            var (frame, _) = bannerFrame(block, tableRows: 0)
            if table.asciiOnly { frame.useASCIIOnly() }
            body(frame, 0..<frame.height)
        }
        var first = 0
        repeat {
            let count = min(block, rows - first)
            let last = first + count == rows
            let tableRows = 1 + count + (last ? message.count : 0)
            // Frames after the first draw the table's header again, above
            // their rows, and leave it out of what is printed.
            var (frame, start) =
                first == 0 ? bannerFrame(banner.count - bannerShown, tableRows: tableRows) : (Frame(width: width, height: tableRows), 0)
            drawTable(table, into: &frame, top: start, rowCount: count, highlight: false, now: now, scrollOffset: first)
            if last {
                for (offset, line) in message.enumerated() {
                    frame.draw(line, row: frame.height - message.count + offset)
                }
            }
            if table.asciiOnly { frame.useASCIIOnly() }
            body(frame, (first == 0 ? 0 : 1)..<frame.height)
            first += count
        } while first < rows
    }

    /// One host's detail view whole (`inspect --format svg|html`): the
    /// dated header, the view's title and every one of its lines, unscrolled,
    /// without the keys that only mean something on a live screen.
    package static func detailSnapshotFrame(for state: DashboardState, hostIndex: Int, width: Int, now: Date) -> Frame {
        let width = max(width, minimumWidth)
        let lines = DetailLayout.lines(for: state, hostIndex: hostIndex, now: now, live: false)
        var frame = Frame(width: width, height: HeaderLayout.height + 1 + lines.count)
        drawHeader(state, into: &frame, now: now, dated: true)
        let title = state.hosts.indices.contains(hostIndex) ? state.hosts[hostIndex].displayName : "?"
        frame.draw([Span(" detail: \(title)", Style(.header, bold: true))], row: HeaderLayout.height)
        frame.restyle(row: HeaderLayout.height) { _ in Style(.header) }
        for (offset, line) in lines.enumerated() {
            frame.draw(line, row: HeaderLayout.height + 1 + offset)
        }
        return frame
    }

    /// `rows 1–20 of 41 · #7` when the table does not fit, and how many
    /// hosts the filter hides: nothing below the screen goes unnoticed.
    static func tablePosition(_ state: DashboardState, capacity: Int) -> String? {
        let visible = state.visibleHostIndices
        let hidden = state.hosts.count - visible.count
        var parts: [String] = []
        if visible.count > capacity, capacity > 0 {
            let first = state.tableWindowStart(capacity: capacity)
            var text = "rows \(first + 1)–\(min(visible.count, first + capacity)) of \(visible.count)"
            if let selected = state.selectedRow { text += " · #\(selected + 1)" }
            parts.append(text)
        }
        if hidden > 0 { parts.append("\(hidden) hidden by the filter") }
        return parts.isEmpty ? nil : parts.joined(separator: " · ")
    }

    /// Table rows that fit on a live screen of `height` rows.
    static func tableCapacity(for state: DashboardState, height: Int) -> Int {
        let banner = BannerLayout.liveCount(for: state, limit: bannerLimit(for: state, height: height))
        return height - HeaderLayout.height - banner - 1 - footerLines(for: state).count
    }

    /// Content lines that fit in the detail view on a screen of `height` rows.
    static func detailCapacity(for state: DashboardState, height: Int) -> Int {
        height - HeaderLayout.height - 1 - footerLines(for: state).count
    }

    private static func bannerLimit(for state: DashboardState, height: Int) -> Int {
        // Keep at least two table rows under the banner.
        let spare = height - HeaderLayout.height - 1 - footerLines(for: state).count - 2
        return max(0, min(liveBannerLimit(height: height), spare))
    }

    /// `dated`: a snapshot names the day and time zone of its cycle, so a
    /// picture pasted into a runbook says when it was true.
    private static func drawHeader(_ state: DashboardState, into frame: inout Frame, now: Date, dated: Bool = false) {
        frame.draw(HeaderLayout.titleLine(for: state, width: frame.width), row: 0)
        frame.restyle(row: 0) { $0.role == .normal ? Style(.header, bold: $0.bold) : $0 }
        frame.draw(HeaderLayout.statusLine(for: state, now: now, dated: dated), row: 1)
    }

    private static func drawBanner(_ lines: [StyledLine], into frame: inout Frame, startRow: Int) {
        for (offset, line) in lines.enumerated() {
            frame.draw(line, row: startRow + offset)
            frame.restyle(row: startRow + offset) { $0.role == .normal ? Style(.banner, bold: $0.bold) : $0 }
        }
    }

    private static func drawTable(
        _ state: DashboardState, into frame: inout Frame, top: Int, rowCount: Int, highlight: Bool, now: Date,
        scrollOffset: Int? = nil
    ) {
        let visible = state.visibleHostIndices
        let sorted = TableColumn.sorting(state.sortOrder)
        let columns = TableLayout.columns(
            width: frame.width, chainLevels: TableLayout.maxLevels(visible, state: state), labelWidth: state.hostLabels.widest,
            sortedBy: sorted)
        TableLayout.drawHeader(into: &frame, row: top, columns: columns, sorted: sorted.map { ($0, state.sortReversed) })
        guard rowCount > 0 else { return }
        if visible.isEmpty {
            let text = state.hosts.isEmpty ? "no hosts configured" : "no host matches the filter “\(state.filter)”"
            frame.put(" " + text, row: top + 1, column: 0, style: Style(.dim))
            return
        }
        // The state keeps the selection in view; clamp again in case the frame is not the size it assumed.
        let first = scrollOffset.map { min($0, max(0, visible.count - rowCount)) } ?? state.tableWindowStart(capacity: rowCount)
        for offset in 0..<min(rowCount, visible.count - first) {
            let hostIndex = visible[first + offset]
            let row = top + 1 + offset
            TableLayout.drawRow(into: &frame, row: row, hostIndex: hostIndex, state: state, columns: columns, now: now)
            if highlight, hostIndex == state.selectedHost {
                frame.restyle(row: row) { $0.with(selected: true) }
            }
        }
    }

    private static func drawDetail(
        _ state: DashboardState, hostIndex: Int, lines: [StyledLine], into frame: inout Frame, bodyHeight: Int
    ) {
        let title = state.hosts.indices.contains(hostIndex) ? state.hosts[hostIndex].displayName : "?"
        drawScrolled(
            title: " detail: \(title)", hint: "   Esc/q back · y pins stanza · ↑↓ PgUp PgDn scroll", lines: lines, state: state,
            into: &frame, bodyHeight: bodyHeight)
    }

    /// A title bar and lines scrolled by `detailScroll`: the detail and client views.
    private static func drawScrolled(
        title: String, hint: String, lines: [StyledLine], state: DashboardState, into frame: inout Frame, bodyHeight: Int
    ) {
        let top = HeaderLayout.height
        frame.draw([Span(title, Style(.header, bold: true)), Span(hint, Style(.header))], row: top)
        frame.restyle(row: top) { _ in Style(.header) }
        let capacity = bodyHeight - 1
        guard capacity > 0 else { return }
        let first = max(0, min(state.detailScroll, lines.count - capacity))
        for offset in 0..<min(capacity, lines.count - first) {
            frame.draw(lines[first + offset], row: top + 1 + offset)
        }
    }

    /// The footer's lines; the keys line fitted to `width` (see `keysLine`),
    /// after the table's `position`. Without a width, only the count matters.
    private static func footerLines(for state: DashboardState, width: Int = .max, position: String? = nil) -> [StyledLine] {
        var lines: [StyledLine] = []
        if let message = state.footerMessage {
            lines.append([Span(" " + message, Style(.warn))])
        }
        if let prompt = state.acknowledgementPrompt {
            return lines + acknowledgementPromptLines(prompt, state: state)
        }
        if let problem = state.filterProblem {
            lines.append([Span(" filter: " + problem, Style(.critical, bold: true))])
        }
        if state.isEditingFilter {
            lines.append([
                Span(" / ", Style(.header, bold: true)), Span(state.filter + "▏"),
                Span("   !negate /regex status:NAME · Enter keep · Esc clear · ^U erase", Style(.dim)),
            ])
            return lines
        }
        // Each view's keys in the order shown; `keep` ranks what stays when
        // the line is too long: lower first to go, `?` and quitting never.
        let keys: [FooterKey]
        switch state.view {
        case .detail:
            keys = [
                FooterKey("Esc/q", "back", keep: 9), FooterKey("↑↓", "scroll", keep: 4), FooterKey("y", "pins", keep: 5),
                FooterKey("r", "refresh", keep: 3), FooterKey("t", "theme", keep: 1), FooterKey("?", "help", keep: 10),
                FooterKey("Q", "quit", keep: 10),
            ]
        case .clients:
            keys = [
                FooterKey("c/Esc", "back", keep: 9), FooterKey("↑↓", "scroll", keep: 4), FooterKey("r", "refresh", keep: 3),
                FooterKey("t", "theme", keep: 1), FooterKey("?", "help", keep: 10), FooterKey("Q", "quit", keep: 10),
            ]
        case .table, .help:
            keys =
                [
                    FooterKey("q", "quit", keep: 10), FooterKey("r", "refresh", keep: 3), FooterKey("↑↓", "move", keep: 2),
                    FooterKey("Enter", "detail", keep: 6), FooterKey("/", "filter", keep: 5), FooterKey("s<>I", sortLabel(state), keep: 4),
                    FooterKey("t", "theme", keep: 1), FooterKey("?", "help", keep: 10),
                ] + (state.clients.isEmpty ? [] : [FooterKey("c", "clients", keep: 3)])
        }
        lines.append(keysLine(keys, position: position, width: width))
        return lines
    }

    /// One key of the footer and how much it matters when room runs out.
    struct FooterKey {
        var key: String
        var action: String
        var keep: Int

        init(_ key: String, _ action: String, keep: Int) {
            self.key = key
            self.action = action
            self.keep = keep
        }
    }

    /// ` q quit  r refresh … ? help`: on a narrow screen the least needed
    /// keys leave whole, rather than the line being cut at its end, where
    /// `? help` (the way to every other key) used to be lost at 80 columns.
    static func keysLine(_ keys: [FooterKey], position: String?, width: Int) -> StyledLine {
        let lead = position.map { [Span(" "), Span($0, Style(.warn)), Span("  ")] } ?? [Span(" ")]
        var shown = keys
        func line() -> StyledLine {
            lead + shown.flatMap { [Span($0.key, Style(.header, bold: true)), Span(" \($0.action)  ", Style(.dim))] }
        }
        func fits() -> Bool { line().reduce(0) { $0 + DisplayWidth.of($1.text) } - 2 <= width }
        while !fits(), let least = shown.indices.min(by: { shown[$0].keep < shown[$1].keep }), shown[least].keep < 10 {
            shown.remove(at: least)
        }
        return line()
    }

    /// `a`'s two questions, the refused answer's problem above them.
    private static func acknowledgementPromptLines(_ prompt: AcknowledgementPrompt, state: DashboardState) -> [StyledLine] {
        let host = state.hosts.indices.contains(prompt.hostIndex) ? state.hosts[prompt.hostIndex].displayName : ""
        var lines: [StyledLine] = prompt.problem.map { [[Span(" " + $0, Style(.warn))]] } ?? []
        switch prompt.field {
        case .until:
            // The preselected default is drawn selected (reversed), as a
            // text field shows what the next key replaces.
            let value =
                prompt.untilIsPreselected
                ? [Span(prompt.until, Style(.normal, selected: true)), Span("▏")] : [Span(prompt.until + "▏")]
            let hint = prompt.untilIsPreselected ? "typing replaces it: " : ""
            lines.append(
                [Span(" acknowledge \(host) until: ", Style(.header, bold: true))] + value + [
                    Span("   \(hint)7d, 12h, 2026-12-15 (end of day UTC) · Enter next · Esc cancel", Style(.dim))
                ])
        case .reason:
            lines.append([
                Span(" acknowledge \(host) until \(prompt.until), because: ", Style(.header, bold: true)), Span(prompt.reason + "▏"),
                Span("   Enter acknowledge · Esc cancel", Style(.dim)),
            ])
        }
        return lines
    }

    /// `sort days▼`, `sort config▲`: the footer's short form of the order.
    static func sortLabel(_ state: DashboardState) -> String {
        let name = TableColumn.sorting(state.sortOrder)?.title ?? "config"
        return "sort \(name)" + TableLayout.sortArrow(reversed: state.sortReversed)
    }

    private static func drawTooSmall(into frame: inout Frame) {
        let messages = ["terminal too small", "need \(minimumWidth)×\(minimumHeight)"]
        let top = max(0, frame.height / 2 - 1)
        for (offset, message) in messages.enumerated() where top + offset < frame.height {
            let column = max(0, (frame.width - DisplayWidth.of(message)) / 2)
            frame.put(message, row: top + offset, column: column, style: Style(.warn, bold: true))
        }
    }
}
