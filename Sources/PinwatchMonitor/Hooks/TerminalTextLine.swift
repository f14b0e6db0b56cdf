import PinwatchCore

/// A hook's stderr for one footer or log line: sanitised, lines joined,
/// at most 200 characters.
enum TerminalTextLine {
    static func clean(_ text: String) -> String {
        let joined = text.split(whereSeparator: \.isNewline).joined(separator: " / ")
        let sanitized = TerminalText.sanitize(joined)
        return sanitized.count > 200 ? String(sanitized.prefix(199)) + "…" : sanitized
    }
}
