import Foundation
import PinwatchCore
import PinwatchMonitor
import PinwatchSystem

/// The only place that asks whether a stream is a terminal and how wide it is.
enum TTY {
    static var standardOutputIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
    static var standardInputIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }
    static var standardErrorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// Columns of the terminal on stdout, else `$COLUMNS`, else nil.
    static func columns(environment: [String: String] = ProcessEnvironment.current) -> Int? {
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 {
            return Int(size.ws_col)
        }
        if let text = environment["COLUMNS"], let value = Int(text), value > 0 { return value }
        return nil
    }
}
