/// The `?` overlay: every key, drawn over the table.
enum HelpLayout {
    static let entries: [(String, String)] = [
        ("q  Ctrl-C", "quit"),
        ("r", "probe every host now"),
        ("↑ ↓  j k", "move the selection"),
        ("PgUp PgDn", "move a page"),
        ("g G", "first / last host"),
        ("Enter", "chain detail of the host"),
        ("Esc", "back / clear the filter"),
        ("/", "filter hosts by name"),
        ("s", "worst first ↔ config order"),
        ("t", "next colour theme"),
        ("y", "pins: stanza (detail view)"),
        ("?", "this help"),
        ("✓ ✗ ·", "pin matched / not / no pins"),
        ("L I R", "leaf, intermediate, root"),
    ]

    static func draw(into frame: inout Frame) {
        let boxWidth = min(frame.width - 2, 46)
        let boxHeight = min(frame.height - 2, entries.count + 3)
        guard boxWidth > 10, boxHeight > 3 else { return }
        let left = (frame.width - boxWidth) / 2
        let top = (frame.height - boxHeight) / 2
        let border = Style(.header)
        let title = " help — any key closes"
        frame.put(
            title + String(repeating: " ", count: max(0, boxWidth - DisplayWidth.of(title))), row: top, column: left, maxWidth: boxWidth,
            style: border)
        for row in 1..<boxHeight {
            frame.put(String(repeating: " ", count: boxWidth), row: top + row, column: left, maxWidth: boxWidth, style: .normal)
            frame.put("│", row: top + row, column: left, style: border)
            frame.put("│", row: top + row, column: left + boxWidth - 1, style: border)
        }
        frame.put(String(repeating: "─", count: boxWidth), row: top + boxHeight - 1, column: left, maxWidth: boxWidth, style: border)
        for (offset, entry) in entries.prefix(boxHeight - 3).enumerated() {
            let row = top + 2 + offset
            frame.put(entry.0, row: row, column: left + 2, maxWidth: 12, style: Style(.normal, bold: true))
            frame.put(entry.1, row: row, column: left + 15, maxWidth: boxWidth - 17)
        }
    }
}
