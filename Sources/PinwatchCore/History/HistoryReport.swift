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

/// `pinwatch history --format text|json`.
public enum HistoryReport {
    public static func text(_ timelines: [HostTimeline]) -> String {
        var out = ""
        for (index, timeline) in timelines.enumerated() {
            if index > 0 { out += "\n" }
            var title = "\(timeline.host):\(timeline.port)"
            if timeline.serverName != timeline.host { title += " (SNI \(timeline.serverName))" }
            if let connect = timeline.connect { title += " → \(connect)" }
            out += TerminalText.sanitize(title) + "\n"
            if let first = timeline.firstSeen, let last = timeline.lastSeen {
                out += "  chain first seen \(DateText.readableUTC(first)), last seen \(DateText.readableUTC(last))\n"
            }
            if let renewal = timeline.renewal { out += "  \(renewal.text)\n" }
            for entry in timeline.entries {
                out += "  \(DateText.readableUTC(entry.date))  \(TerminalText.sanitize(entry.text))\n"
            }
        }
        return out
    }

    /// Version 1: `{"version": 1, "hosts": [{host, port, sni, connect,
    /// first_seen, last_seen, renewal_estimate, entries: [{at, kind, text}]}]}`.
    public static func json(_ timelines: [HostTimeline]) -> String {
        let hosts: [JSONValue] = timelines.map { timeline in
            .object([
                ("host", .string(timeline.host)),
                ("port", .int(timeline.port)),
                ("sni", .string(timeline.serverName)),
                ("connect", .optional(timeline.connect)),
                ("first_seen", .optional(timeline.firstSeen.map(DateText.iso8601))),
                ("last_seen", .optional(timeline.lastSeen.map(DateText.iso8601))),
                ("renewal_estimate", timeline.renewal.map(JSONReport.renewal) ?? .null),
                (
                    "entries",
                    .array(
                        timeline.entries.map { entry in
                            .object([
                                ("at", .string(DateText.iso8601(entry.date))), ("kind", .string(entry.kind.rawValue)),
                                ("text", .string(entry.text)),
                            ])
                        })
                ),
            ])
        }
        return JSONValue.object([("version", .int(1)), ("hosts", .array(hosts))]).render() + "\n"
    }
}
