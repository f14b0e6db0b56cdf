import Foundation

/// A host's recorded history, as `pinwatch history` shows it.
public struct HostTimeline: Sendable {
    public var host: String
    public var port: Int
    public var serverName: String
    public var connect: String?
    public var entries: [TimelineEntry]
    public var renewal: RenewalEstimate?
    public var firstSeen: Date?
    public var lastSeen: Date?
    /// The latest pin-failure reports clients sent for the host (`report_uri:`), oldest first.
    public var clientReports: [ClientReportRecord] = []

    public init(
        host: String, port: Int, serverName: String, connect: String?, entries: [TimelineEntry], renewal: RenewalEstimate?,
        firstSeen: Date?, lastSeen: Date?
    ) {
        self.host = host
        self.port = port
        self.serverName = serverName
        self.connect = connect
        self.entries = entries
        self.renewal = renewal
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
    }
}

/// Which of a host's entries `history` shows: those from `since`, and of
/// them the latest `limit` (nil: all). A flapping host can have a million
/// status rows; nobody reads them all by default.
public struct HistoryWindow: Hashable, Sendable {
    public var since: Date?
    public var limit: Int?

    public static let defaultLimit = 100
    public static let all = HistoryWindow(since: nil, limit: nil)

    public init(since: Date?, limit: Int?) {
        self.since = since
        self.limit = limit
    }

    /// `--since`: `7d`, `12h`, `30m`, `90s` back from `now`, or a UTC day
    /// (`2026-11-01`) or time (`2026-11-01T04:10:00Z`).
    public static func parseSince(_ text: String, now: Date) -> Date? {
        let trimmed = text.trimmingWhitespace()
        if trimmed.lowercased().hasSuffix("d"), let days = Double(trimmed.dropLast()), days > 0, days.isFinite {
            return now.addingTimeInterval(-days * 86_400)
        }
        if let seconds = ConfigDuration.parse(trimmed) { return now.addingTimeInterval(-seconds) }
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: trimmed) { return date }
        formatter.formatOptions = [.withFullDate]
        return formatter.date(from: trimmed)
    }
}

/// `pinwatch history --format text|json`, written as the store reads it:
/// host by host, entry by entry, in pieces of at most `flushSize` bytes
/// handed to `output`, so memory does not grow with the history.
///
/// JSON version 1: `{"version": 1, "hosts": [{host, port, sni, connect,
/// first_seen, last_seen, renewal_estimate, entries_omitted, entries:
/// [{at, kind, text}], and with reports client_reports: [{received_at,
/// client, format, app, reported_at, outcome, chain}]}]}`.
public final class HistoryReportWriter {
    public enum Format: Sendable {
        case text
        case json
    }

    private let format: Format
    private let output: (String) -> Void
    private let flushSize: Int
    private var buffer = ""
    private var hostCount = 0
    private var entryCount = 0

    public init(format: Format, flushSize: Int = 64 * 1024, output: @escaping (String) -> Void) {
        self.format = format
        self.flushSize = flushSize
        self.output = output
        if format == .json { buffer = "{\n  \"version\": 1,\n  \"hosts\": [" }
    }

    /// Starts a host; `omitted`: its earlier entries the window leaves out.
    public func host(_ timeline: HostTimeline, omitted: Int) {
        if hostCount > 0 { endHost() }
        hostCount += 1
        entryCount = 0
        switch format {
        case .text: textHeading(timeline, omitted: omitted)
        case .json: jsonHeading(timeline, omitted: omitted)
        }
        flushIfFull()
    }

    public func entry(_ entry: TimelineEntry) {
        switch format {
        case .text:
            buffer += "  \(DateText.readableUTC(entry.date))  \(TerminalText.sanitize(entry.text))\n"
        case .json:
            buffer += entryCount == 0 ? "\n" : ",\n"
            buffer += "        "
            buffer += JSONValue.object([
                ("at", .string(DateText.iso8601(entry.date))), ("kind", .string(entry.kind.rawValue)), ("text", .string(entry.text)),
            ]).renderCompact()
        }
        entryCount += 1
        flushIfFull()
    }

    /// Ends the document and hands over what is left.
    public func finish() {
        if hostCount > 0 { endHost() }
        if format == .json { buffer += hostCount > 0 ? "\n  ]\n}\n" : "]\n}\n" }
        flush()
    }

    private func textHeading(_ timeline: HostTimeline, omitted: Int) {
        if hostCount > 1 { buffer += "\n" }
        var title = "\(timeline.host):\(timeline.port)"
        if timeline.serverName != timeline.host { title += " (SNI \(timeline.serverName))" }
        if let connect = timeline.connect { title += " → \(connect)" }
        buffer += TerminalText.sanitize(title) + "\n"
        if let first = timeline.firstSeen, let last = timeline.lastSeen {
            buffer += "  chain first seen \(DateText.readableUTC(first)), last seen \(DateText.readableUTC(last))\n"
        }
        if let renewal = timeline.renewal { buffer += "  \(renewal.text)\n" }
        for report in timeline.clientReports {
            buffer += TerminalText.sanitize("  \(DateText.readableUTC(report.receivedAt))  \(Self.clientReportLine(report))") + "\n"
        }
        if omitted > 0 {
            let what = omitted == 1 ? "1 earlier entry" : "\(omitted) earlier entries"
            buffer += "  … \(what) not shown (--limit N, --limit 0 for all, --since 7d|DATE for a window)\n"
        }
    }

    private func jsonHeading(_ timeline: HostTimeline, omitted: Int) {
        var fields: [(String, JSONValue)] = [
            ("host", .string(timeline.host)),
            ("port", .int(timeline.port)),
            ("sni", .string(timeline.serverName)),
            ("connect", .optional(timeline.connect)),
            ("first_seen", .optional(timeline.firstSeen.map(DateText.iso8601))),
            ("last_seen", .optional(timeline.lastSeen.map(DateText.iso8601))),
            ("renewal_estimate", timeline.renewal.map(JSONReport.renewal) ?? .null),
            ("entries_omitted", .int(omitted)),
        ]
        // Only with reports: a store without report_uri: reads as it always did.
        if !timeline.clientReports.isEmpty {
            fields.append(("client_reports", .array(timeline.clientReports.map(Self.clientReportJSON))))
        }
        buffer += hostCount > 1 ? ",\n    {\n" : "\n    {\n"
        for (name, value) in fields {
            buffer += "      \(JSONValue.string(name).renderCompact()): \(value.render(indent: 3)),\n"
        }
        buffer += "      \"entries\": ["
    }

    /// `client report from ios-7.1 (trustkit, com.example 7.1; chain not trusted): CN=a <- CN=b`
    static func clientReportLine(_ report: ClientReportRecord) -> String {
        let details = [report.format == report.client ? nil : report.format, report.app].compactMap { $0 }.joined(separator: ", ")
        let outcome = report.outcome.map { "; \($0)" } ?? ""
        let about = details.isEmpty && outcome.isEmpty ? "" : " (\(details.isEmpty ? String(outcome.dropFirst(2)) : details + outcome))"
        return "client report from \(report.client)\(about): \(report.chainSummary)"
    }

    static func clientReportJSON(_ report: ClientReportRecord) -> JSONValue {
        .object([
            ("received_at", .string(DateText.iso8601(report.receivedAt))), ("client", .string(report.client)),
            ("format", .string(report.format)), ("app", .optional(report.app)), ("reported_at", .optional(report.reportedAt)),
            ("outcome", .optional(report.outcome)), ("chain", .array(report.chain.map(JSONValue.string))),
        ])
    }

    private func endHost() {
        if format == .json { buffer += entryCount > 0 ? "\n      ]\n    }" : "]\n    }" }
    }

    private func flushIfFull() {
        if buffer.utf8.count >= flushSize { flush() }
    }

    private func flush() {
        guard !buffer.isEmpty else { return }
        output(buffer)
        buffer = ""
    }
}
