/// How one role looks.
package struct RoleAppearance: Hashable, Sendable {
    package var foreground: TerminalColor
    package var background: TerminalColor
    package var bold: Bool
    package var reverse: Bool
    package var underline: Bool

    package init(
        foreground: TerminalColor = .terminalDefault, background: TerminalColor = .terminalDefault,
        bold: Bool = false, reverse: Bool = false, underline: Bool = false
    ) {
        self.foreground = foreground
        self.background = background
        self.bold = bold
        self.reverse = reverse
        self.underline = underline
    }

    package static let plain = RoleAppearance()
}

/// A colour theme: role → colours and attributes.
package struct Theme: Hashable, Sendable {
    package var name: String
    package var roles: [StyleRole: RoleAppearance]

    package init(name: String, roles: [StyleRole: RoleAppearance]) {
        self.name = name
        self.roles = roles
    }

    /// The final look of a cell style: the role, then the bold flag, then
    /// the selection bar laid over it.
    ///
    /// Both the ANSI renderer and the ncurses painter use this, so a
    /// snapshot and the live screen agree on every colour.
    package func appearance(for style: Style) -> RoleAppearance {
        var look = roles[style.role] ?? .plain
        if style.bold { look.bold = true }
        if style.selected, style.role != .selected {
            let bar = roles[.selected] ?? RoleAppearance(reverse: true)
            if bar.background != .terminalDefault { look.background = bar.background }
            // A bar with colours of its own (high-contrast's black on
            // yellow) chose its foreground for that background: every cell
            // on it takes it, since no role colour was chosen to be read there.
            let barHasItsOwnColours = bar.foreground != .terminalDefault && bar.background != .terminalDefault
            if style.role == .normal || style.role == .dim || barHasItsOwnColours, bar.foreground != .terminalDefault {
                look.foreground = bar.foreground
            }
            look.bold = look.bold || bar.bold
            look.reverse = look.reverse != bar.reverse
            look.underline = look.underline || bar.underline
            // A role coloured like the bar (a yellow warning on a yellow bar)
            // would vanish: it takes the bar's text colour, else the normal one.
            if look.foreground == look.background, look.foreground != .terminalDefault {
                let normal = roles[.normal]?.foreground ?? .terminalDefault
                look.foreground = [bar.foreground, normal].first { $0 != .terminalDefault && $0 != look.background } ?? .terminalDefault
            }
        }
        return look
    }
}
