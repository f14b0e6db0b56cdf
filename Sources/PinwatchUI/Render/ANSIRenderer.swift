/// A Frame as text with SGR colours from a theme, reset at each line end so
/// that a pager or a `grep` never inherits a colour.
package enum ANSIRenderer {
    /// `colorCount` decides how `#rrggbb` colours are mapped; 256 suits
    /// every terminal a runbook is likely to be pasted into.
    package static func render(_ frame: Frame, theme: Theme, colorCount: Int = 256) -> String {
        var output = ""
        for row in 0..<frame.height {
            let cells = Array(frame.row(row))
            // Trailing blanks are dropped only where they would show nothing.
            var end = cells.count
            while end > 0, cells[end - 1].text == " ", theme.appearance(for: cells[end - 1].style).isInvisibleBlank {
                end -= 1
            }
            var current: String?
            for cell in cells[..<end] where !cell.text.isEmpty {
                let sgr = sequence(for: theme.appearance(for: cell.style), colorCount: colorCount)
                if sgr != current {
                    output += sgr
                    current = sgr
                }
                output += cell.text
            }
            output += "\u{1B}[0m\n"
        }
        return output
    }

    static func sequence(for look: RoleAppearance, colorCount: Int) -> String {
        var codes = ["0"]
        if look.bold { codes.append("1") }
        if look.underline { codes.append("4") }
        if look.reverse { codes.append("7") }
        if let foreground = look.foreground.paletteIndex(colorCount: colorCount) {
            codes.append(code(foreground, base: 30, bright: 90, extended: 38))
        }
        if let background = look.background.paletteIndex(colorCount: colorCount) {
            codes.append(code(background, base: 40, bright: 100, extended: 48))
        }
        return "\u{1B}[" + codes.joined(separator: ";") + "m"
    }

    private static func code(_ index: Int, base: Int, bright: Int, extended: Int) -> String {
        switch index {
        case 0..<8: return "\(base + index)"
        case 8..<16: return "\(bright + index - 8)"
        default: return "\(extended);5;\(index)"
        }
    }
}

extension RoleAppearance {
    /// A space in this look is indistinguishable from no character.
    var isInvisibleBlank: Bool {
        background == .terminalDefault && !reverse && !underline
    }
}
