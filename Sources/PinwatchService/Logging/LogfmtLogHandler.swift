import Foundation
import Logging
import PinwatchCore

/// swift-log's handler for `serve`: one logfmt line per event on stderr,
/// `time=… level=info msg="…" key=value…`, which journald, Loki and
/// humans all read. Values are sanitised: a host or a hook's stderr cannot
/// forge a line or an escape sequence.
package struct LogfmtLogHandler: LogHandler {
    package var metadata: Logger.Metadata = [:]
    package var logLevel: Logger.Level = .info
    private let label: String
    private let sink: @Sendable (String) -> Void

    package init(label: String, sink: @escaping @Sendable (String) -> Void = LogfmtLogHandler.standardError) {
        self.label = label
        self.sink = sink
    }

    package static let standardError: @Sendable (String) -> Void = { line in
        let bytes = Array(line.utf8)
        _ = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(
        level: Logger.Level, message: Logger.Message, metadata explicit: Logger.Metadata?, source: String,
        file: String, function: String, line: UInt
    ) {
        var fields: [(String, String)] = [("time", DateText.iso8601(Date())), ("level", level.rawValue), ("msg", message.description)]
        let merged = metadata.merging(explicit ?? [:]) { _, new in new }
        for key in merged.keys.sorted() {
            fields.append((key, "\(merged[key]!)"))
        }
        sink(fields.map { "\($0.0)=\(Self.value($0.1))" }.joined(separator: " ") + "\n")
    }

    /// Bare when it is one plain word, else double-quoted with escapes.
    static func value(_ raw: String) -> String {
        let text = TerminalText.sanitize(raw)
        let plain = !text.isEmpty && text.allSatisfy { !$0.isWhitespace && $0 != "\"" && $0 != "=" && $0 != "\\" }
        if plain { return text }
        return "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
