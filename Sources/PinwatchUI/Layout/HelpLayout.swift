/// The `?` overlay: every key, drawn over the table.
enum HelpLayout {
    static let entries: [(String, String)] = [
        ("q", "quit (in detail and help: back)"),
        ("Q F10 ^C", "quit from anywhere"),
        ("r", "probe every host now"),
        ("↑ ↓  j k", "move the selection"),
        ("PgUp PgDn", "move a page"),
        ("g G", "first / last host"),
        ("Enter", "chain detail of the host"),
        ("c", "what each app release sees"),
        ("Esc", "back / clear the filter"),
        ("/", "filter by name, or status:NAME"),
        ("/ !… //…", "negate: /!unpinned; regex: //api-.*"),
        ("s", "worst first ↔ config order"),
        ("< >", "sort by the column left / right"),
        ("I", "reverse the sort (ties: config order)"),
        ("t", "next colour theme"),
        ("y", "pins: stanza (detail view)"),
        ("a A", "acknowledge the host until… / remove"),
        ("? F1", "this help"),
        ("^U", "clear the filter being typed"),
        ("wheel click", "move / select (--no-mouse: off)"),
        ("✓ ✗ ·", "pin matched / not / no pins"),
        ("L I R", "leaf, intermediate, root"),
        ("days 9I 9R", "intermediate / root expires first"),
    ]

    /// Key column, gap and borders around the descriptions.
    static let keyColumn = 15
    /// As wide as the longest entry needs (so none is cut on a wide
    /// screen), no wider than the screen less a cell each side.
    static func boxWidth(screenWidth: Int) -> Int {
        let widest = entries.map { DisplayWidth.of($0.1) }.max() ?? 0
        return min(screenWidth - 2, keyColumn + widest + 2)
    }

    /// A bordered box in the middle of the screen; when the screen is too
    /// small for every entry, the last line says how many are left out.
    static func draw(into frame: inout Frame) {
        let boxWidth = boxWidth(screenWidth: frame.width)
        let boxHeight = min(frame.height - 2, entries.count + 3)
        guard boxWidth > 10, boxHeight > 3 else { return }
        let left = (frame.width - boxWidth) / 2
        let top = (frame.height - boxHeight) / 2
        let border = Style(.header)
        let inner = boxWidth - 2
        let title = " help — any key closes "
        let titleWidth = min(DisplayWidth.of(title), inner)
        frame.put(
            "┌" + title + String(repeating: "─", count: max(0, inner - titleWidth)) + "┐", row: top, column: left, maxWidth: boxWidth,
            style: border)
        for row in 1..<(boxHeight - 1) {
            frame.put(String(repeating: " ", count: boxWidth), row: top + row, column: left, maxWidth: boxWidth, style: .normal)
            frame.put("│", row: top + row, column: left, style: border)
            frame.put("│", row: top + row, column: left + boxWidth - 1, style: border)
        }
        frame.put(
            "└" + String(repeating: "─", count: inner) + "┘", row: top + boxHeight - 1, column: left, maxWidth: boxWidth, style: border)
        let room = boxHeight - 3
        let shown = entries.count <= room ? entries.count : max(0, room - 1)
        for (offset, entry) in entries.prefix(shown).enumerated() {
            let row = top + 2 + offset
            frame.put(entry.0, row: row, column: left + 2, maxWidth: 12, style: Style(.normal, bold: true))
            frame.put(entry.1, row: row, column: left + keyColumn, maxWidth: boxWidth - keyColumn - 2)
        }
        if shown < entries.count {
            frame.put(
                "… \(entries.count - shown) more: a taller terminal shows them", row: top + 2 + shown, column: left + 2,
                maxWidth: boxWidth - 4, style: Style(.dim))
        }
    }
}
