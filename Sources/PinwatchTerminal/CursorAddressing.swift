internal import CNCurses

/// Whether a terminal type can host the dashboard: it must move the cursor
/// anywhere (terminfo's `cup`), which `dumb`, emacs' shell buffers and
/// printing terminals cannot. Asked before the screen is taken over, so a
/// refusal leaves the terminal as it was.
package enum CursorAddressing: Equatable, Sendable {
    case supported
    /// The terminfo entry has no `cup`.
    case unsupported
    /// TERM is unset, empty or names no terminfo entry.
    case unknownTerminal

    package static func of(term: String?) -> CursorAddressing {
        guard let term, !term.isEmpty else { return .unknownTerminal }
        switch pinwatch_terminal_addresses_cursor(term) {
        case 1: return .supported
        case 0: return .unsupported
        default: return .unknownTerminal
        }
    }
}
