import Foundation

/// A host whose severity changed between two of its results: what a hook
/// is told (`hooks:`), as one JSON object on its standard input.
public struct SeverityTransition: Sendable {
    public var previous: (status: HostStatus, severity: HostSeverity)?
    public var report: HostReport
    public var time: Date

    public init(previous: (status: HostStatus, severity: HostSeverity)?, report: HostReport, time: Date) {
        self.previous = previous
        self.report = report
        self.time = time
    }

    /// The transition from `previous` to `report`, or nil when the
    /// severity stayed. A host's first result counts as coming from ok, so
    /// a host already in trouble when pinwatch starts is reported, and a
    /// healthy one is not.
    public static func between(_ previous: HostReport?, _ report: HostReport, at time: Date) -> SeverityTransition? {
        let before = previous?.severity ?? .ok
        guard report.severity != before else { return nil }
        return SeverityTransition(previous: previous.map { ($0.status, $0.severity) }, report: report, time: time)
    }

    /// One line of JSON. Proxy details are left out on purpose: a proxy
    /// URL may carry credentials, and a hook needs none of it.
    public var json: String {
        let config = report.config
        let old: JSONValue =
            previous.map {
                .object([("status", .string($0.status.rawValue)), ("severity", .string($0.severity.rawValue))])
            } ?? .null
        let value = JSONValue.object([
            ("event", .string("severity_changed")),
            ("time", .string(DateText.iso8601(time))),
            ("host", .string(config.host)),
            ("port", .int(config.port)),
            ("sni", .string(config.serverName)),
            ("connect", .optional(config.connectAddress)),
            ("old", old),
            ("new", .object([("status", .string(report.status.rawValue)), ("severity", .string(report.severity.rawValue))])),
            ("reason", .string(report.reason)),
            ("alerts", .array(report.alerts.map { .string($0.rawValue) })),
            ("leaf_days_left", .optional(report.leafDaysLeft)),
            ("days_left", .optional(report.daysLeft)),
            ("pins", .array(report.levels.map { .string(PinText.sha256($0.certificate.facts.spkiSHA256)) })),
        ])
        return value.renderCompact() + "\n"
    }
}
