import Foundation

/// A host whose status or severity changed between two of its results:
/// what a hook is told (`hooks:`), as one JSON object on its standard input.
public struct SeverityTransition: Sendable {
    public var previous: (status: HostStatus, severity: HostSeverity)?
    public var report: HostReport
    public var time: Date
    /// Unique per event and the same in each of its retries, so a receiver
    /// can drop a retry it already has. Set by whoever tells the hooks (the
    /// monitor), as Core makes no random numbers.
    public var id: String
    /// 1 for the first event of the process, then increasing by one; it
    /// starts again at 1 when pinwatch restarts (not persisted), so it
    /// orders events and shows gaps, and `id` is what tells them apart.
    public var sequence: Int

    public init(
        previous: (status: HostStatus, severity: HostSeverity)?, report: HostReport, time: Date, id: String = "", sequence: Int = 0
    ) {
        self.previous = previous
        self.report = report
        self.time = time
        self.id = id
        self.sequence = sequence
    }

    /// The transition from `previous` to `report`, or nil when both the
    /// status and the severity stayed: leaf_only → ok is a recovery even
    /// while another warning (chain_changed) holds the severity. Without a
    /// previous result in this run, the history store's last recorded one
    /// stands in (a restart is not news); a host never seen before counts
    /// as coming from ok, so one already in trouble is reported and a
    /// healthy one (ok or unpinned) is not.
    public static func between(_ previous: HostReport?, _ report: HostReport, at time: Date) -> SeverityTransition? {
        let before = previous.map { ($0.status, $0.severity) } ?? recorded(report.history)
        if let before {
            guard before.0 != report.status || before.1 != report.severity else { return nil }
        } else {
            guard report.severity != .ok else { return nil }
        }
        return SeverityTransition(previous: before, report: report, time: time)
    }

    /// `severity_changed`, or `status_changed` when only the status did.
    public var event: String {
        previous.map { $0.severity == report.severity } == true ? "status_changed" : "severity_changed"
    }

    private static func recorded(_ history: HostHistory?) -> (status: HostStatus, severity: HostSeverity)? {
        guard let status = history?.previousStatus, let severity = history?.previousSeverity else { return nil }
        return (status, severity)
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
            ("event", .string(event)),
            ("id", .string(id)),
            ("sequence", .int(sequence)),
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
            ("labels", JSONReport.ownerLabels(config)),
            ("runbook", .optional(config.runbook)),
            ("pins", .array(report.levels.map { .string(PinText.sha256($0.certificate.facts.spkiSHA256)) })),
            ("acknowledged", AcknowledgementJSON.value(report.acknowledgement)),
        ])
        return value.renderCompact() + "\n"
    }
}
