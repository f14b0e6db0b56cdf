internal import CNCurses
import Foundation
import PinwatchUI

/// The only code that talks to ncurses: paints Frames, reads keys.
///
/// One owner for the SCREEN pointer, used from one thread (the controller's
/// main loop). Everything it draws was laid out and sanitised by
/// PinwatchUI; this class only maps cells and styles onto curses calls.
package final class TerminalScreen {
    private let screen: OpaquePointer
    private var window: UnsafeMutablePointer<WINDOW>
    private var isRestored = false
    /// Colour pair per (foreground, background); -1 is the terminal's default.
    private var pairs: [PairKey: Int16] = [:]
    private var nextPair: Int16 = 1
    private let maxPairs: Int
    /// What the window holds: the last frame drawn, in which theme, at
    /// which size. Nil after a resize or a resume: the next paint is whole.
    private var painted: (frame: Frame, theme: Theme, rows: Int, columns: Int)?

    /// True when the terminal can show colours at all.
    package let supportsColor: Bool
    /// Colours the terminal has (0 without colour): 8, 16, 256 …
    package let colorCount: Int
    private let hasDefaultColors: Bool

    private struct PairKey: Hashable {
        var foreground: Int
        var background: Int
    }

    /// Takes over the terminal: UTF-8 locale, no echo, keys decoded,
    /// input that never blocks, no cursor, colours when available.
    ///
    /// `cbreak` rather than `raw`: Ctrl-C stays SIGINT (the controller
    /// handles it and restores), and Ctrl-Z keeps working.
    ///
    /// Installs the crash-time restore first, and keeps ncurses' own
    /// SIGTSTP handler out (`JobControl` handles Ctrl-Z instead).
    /// `mouse`: report the wheel and clicks (`--no-mouse` leaves the
    /// terminal's own selection alone).
    package init(mouse: Bool = true) throws {
        TerminalGuard.install()
        JobControl.keepCursesHandlerOut()
        Self.chooseUTF8Locale()
        // newterm, unlike initscr, returns NULL instead of exiting the process.
        guard let screen = newterm(nil, stdout, stdin) else {
            throw TerminalError("cannot initialise the terminal (TERM=\(ProcessInfo.processInfo.environment["TERM"] ?? "unset"))")
        }
        self.screen = screen
        set_term(screen)
        guard let window = pinwatch_stdscr() else {
            endwin()
            delscreen(screen)
            throw TerminalError("the terminal has no screen")
        }
        self.window = window
        cbreak()
        noecho()
        nonl()
        keypad(window, true)
        nodelay(window, true)
        // Esc must feel immediate; the default waits a whole second for a sequence.
        set_escdelay(25)
        curs_set(0)
        if mouse {
            mousemask(pinwatch_mouse_events(), nil)
            // Presses at once, no wait to tell a click from a drag.
            mouseinterval(0)
        }
        if has_colors() {
            start_color()
            hasDefaultColors = use_default_colors() == OK
            supportsColor = true
            colorCount = Int(pinwatch_COLORS())
            maxPairs = min(Int(pinwatch_COLOR_PAIRS()), Int(Int16.max))
        } else {
            hasDefaultColors = false
            supportsColor = false
            colorCount = 0
            maxPairs = 0
        }
    }

    /// The user's locale, but with UTF-8 characters whatever it says.
    ///
    /// ncursesw decides at `newterm` whether it may write UTF-8, from
    /// LC_CTYPE; with LANG unset (CI, some ssh sessions) that is "C" and ✓ ✗ ·
    /// would come out as `?` or `~X`. Every terminal pinwatch targets reads
    /// UTF-8, so C.UTF-8 (shipped by Debian and most distributions) takes over
    /// LC_CTYPE only; the user's other categories are kept.
    private static func chooseUTF8Locale() {
        setlocale(LC_ALL, "")
        guard !isUTF8Codeset() else { return }
        for candidate in ["C.UTF-8", "C.utf8", "en_US.UTF-8"] where setlocale(LC_CTYPE, candidate) != nil {
            if isUTF8Codeset() { return }
        }
    }

    private static func isUTF8Codeset() -> Bool {
        guard let codeset = pinwatch_locale_codeset() else { return false }
        let name = String(cString: codeset).uppercased()
        return name == "UTF-8" || name == "UTF8"
    }

    deinit {
        restore()
        delscreen(screen)
    }

    /// The terminal's size as curses knows it.
    package var size: (rows: Int, columns: Int) {
        var rows: Int32 = 0
        var columns: Int32 = 0
        pinwatch_getmaxyx(window, &rows, &columns)
        return (Int(rows), Int(columns))
    }

    /// Draws a Frame and updates the terminal once; returns how many cells
    /// were drawn.
    ///
    /// Only the cells that differ from the last frame painted are drawn:
    /// a dashboard that moved only its clock and ages costs those cells,
    /// not the screen. Everything is drawn again after a resize, a resume,
    /// a new theme or a frame of another size.
    ///
    /// A frame larger than the terminal is clipped, a smaller one leaves the
    /// rest blank, so a resize between layout and paint never crashes.
    @discardableResult
    package func paint(_ frame: Frame, theme: Theme) -> Int {
        guard !isRestored else { return 0 }
        let (rows, columns) = size
        let previous = painted.flatMap { last in
            last.frame.width == frame.width && last.frame.height == frame.height && last.theme == theme
                && last.rows == rows && last.columns == columns ? last.frame : nil
        }
        if previous == nil { werase(window) }
        var drawn = 0
        for row in 0..<min(rows, frame.height) {
            for column in 0..<min(columns, frame.width) {
                let cell = frame[row, column]
                if let previous, previous[row, column] == cell { continue }
                // The second half of a wide character: its first half draws it.
                if cell.text.isEmpty { continue }
                // The last cell of a wide character would wrap past the edge.
                if column == columns - 1, DisplayWidth.of(cell.text) == 2 {
                    if previous != nil { draw(.blank, row: row, column: column, theme: theme) }
                    continue
                }
                draw(cell, row: row, column: column, theme: theme)
                drawn += 1
            }
        }
        painted = (frame, theme, rows, columns)
        wnoutrefresh(window)
        doupdate()
        return drawn
    }

    private func draw(_ cell: Cell, row: Int, column: Int, theme: Theme) {
        let look = theme.appearance(for: cell.style)
        var attributes = pinwatch_A_NORMAL()
        if look.bold { attributes |= pinwatch_A_BOLD() }
        if look.reverse { attributes |= pinwatch_A_REVERSE() }
        if look.underline { attributes |= pinwatch_A_UNDERLINE() }
        let pair = colorPair(for: look)
        var characters: [wchar_t] = cell.text.unicodeScalars.prefix(Int(CCHARW_MAX) - 1).map { wchar_t(bitPattern: $0.value) }
        characters.append(0)
        var complex = cchar_t()
        guard setcchar(&complex, characters, attributes, pair, nil) == OK else { return }
        // Writing the bottom-right cell returns ERR after drawing; that is expected.
        _ = mvwadd_wch(window, Int32(row), Int32(column), &complex)
    }

    private func colorPair(for look: RoleAppearance) -> Int16 {
        guard supportsColor else { return 0 }
        let fallback = hasDefaultColors ? -1 : 0
        let key = PairKey(
            foreground: look.foreground.paletteIndex(colorCount: colorCount) ?? (hasDefaultColors ? -1 : 7),
            background: look.background.paletteIndex(colorCount: colorCount) ?? fallback)
        if key.foreground == -1 && key.background == -1 { return 0 }
        if let pair = pairs[key] { return pair }
        guard Int(nextPair) < maxPairs else { return 0 }
        let pair = nextPair
        guard init_pair(pair, Int16(key.foreground), Int16(key.background)) == OK else { return 0 }
        nextPair += 1
        pairs[key] = pair
        return pair
    }

    /// Every key waiting in the input queue, without blocking.
    package func readKeys() -> [Key] {
        guard !isRestored else { return [] }
        var keys: [Key] = []
        // Bounded: a paste of thousands of characters is read over several frames.
        for _ in 0..<256 {
            var input: wint_t = 0
            let kind = wget_wch(window, &input)
            if kind == ERR { break }
            if kind == KEY_CODE_YES {
                if let key = Self.key(forCode: Int32(input)) { keys.append(key) }
            } else if let key = Self.key(forCharacter: input) {
                keys.append(key)
            }
        }
        return keys
    }

    private static func key(forCode code: Int32) -> Key? {
        switch code {
        case KEY_UP: return .up
        case KEY_DOWN: return .down
        case KEY_PPAGE: return .pageUp
        case KEY_NPAGE: return .pageDown
        case KEY_HOME: return .home
        case KEY_END: return .end
        case KEY_ENTER: return .enter
        case KEY_BACKSPACE: return .backspace
        case KEY_RESIZE: return .resize
        case KEY_MOUSE:
            var row: Int32 = 0
            switch pinwatch_read_mouse(&row) {
            case 1: return .click(row: Int(row))
            case 4: return .wheelUp
            case 5: return .wheelDown
            default: return nil
            }
        case (KEY_F0 + 1)...(KEY_F0 + 12): return .function(Int(code - KEY_F0))
        default: return nil
        }
    }

    private static func key(forCharacter value: wint_t) -> Key? {
        switch value {
        case 0x03: return .ctrlC
        case 0x15: return .ctrlU
        case 0x0A, 0x0D: return .enter
        case 0x1B: return .escape
        case 0x08, 0x7F: return .backspace
        default:
            guard let scalar = Unicode.Scalar(UInt32(value)), value >= 0x20 else { return nil }
            return .character(Character(scalar))
        }
    }

    /// Re-reads the real size from the terminal and tells curses about it.
    ///
    /// Needed when SIGWINCH was handled by the controller rather than by
    /// curses' own KEY_RESIZE.
    package func handleResize() {
        guard !isRestored else { return }
        var rows: Int32 = 0
        var columns: Int32 = 0
        if pinwatch_terminal_size(STDOUT_FILENO, &rows, &columns) == 0 {
            resizeterm(rows, columns)
        }
        painted = nil
        clearok(window, true)
    }

    package func bell() {
        guard !isRestored else { return }
        beep()
    }

    /// Puts `text` on the user's clipboard with OSC 52. Plain OSC 52 inside
    /// tmux too: tmux takes it itself when `set-clipboard` is on (and passes
    /// it on to the outer terminal), while a passthrough wrapper is dropped
    /// by tmux 3.3+ unless `allow-passthrough` is set. GNU screen needs its
    /// DCS wrapper. Returns how many bytes of text were sent.
    @discardableResult
    package func sendClipboard(_ text: String) -> Int {
        guard !isRestored else { return 0 }
        let payload = Data(text.utf8).base64EncodedString()
        let environment = ProcessInfo.processInfo.environment
        let osc = "\u{1B}]52;c;\(payload)\u{07}"
        let sequence: String
        if environment["TMUX"] == nil, (environment["TERM"] ?? "").hasPrefix("screen") {
            sequence = "\u{1B}P" + osc + "\u{1B}\\"
        } else {
            sequence = osc
        }
        writeToTerminal(sequence)
        return text.utf8.count
    }

    private func writeToTerminal(_ text: String) {
        fflush(stdout)
        var bytes = Array(text.utf8)
        var offset = 0
        // Bounded: write either progresses or fails.
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { buffer in
                write(STDOUT_FILENO, buffer.baseAddress?.advanced(by: offset), buffer.count - offset)
            }
            if written <= 0 { break }
            offset += written
        }
    }

    /// Gives the terminal back for a while (Ctrl-Z): the shell's modes and
    /// main screen return; `resume` takes them again.
    package func suspend() {
        guard !isRestored else { return }
        curs_set(1)
        endwin()
        fflush(stdout)
    }

    /// Takes the terminal again after `suspend`; the next paint redraws
    /// everything at the terminal's current size.
    package func resume() {
        guard !isRestored else { return }
        handleResize()
        curs_set(0)
    }

    /// Gives the terminal back (endwin). Idempotent, and safe from a fatal
    /// error path: it only calls endwin once.
    package func restore() {
        guard !isRestored else { return }
        isRestored = true
        curs_set(1)
        endwin()
    }
}
