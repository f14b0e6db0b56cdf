/// `pinwatch check`: one Nagios/Icinga plugin result (DESIGN §7).
///
/// The library returns the text and the exit code; the executable prints
/// and exits, so the mapping is testable.
public enum CheckReport {
    /// Hosts named per status on the first line; the rest are in the long output.
    static let hostsNamedPerStatus = 3

    public static func render(_ reports: [HostReport]) -> (exitCode: Int32, text: String) {
        let state = reports.map(CheckState.init).max { $0.rank < $1.rank } ?? .ok
        var lines = ["PINWATCH \(state.label) - \(summary(reports)) | \(perfdata(reports))"]
        for report in reports where report.status != .ok || !report.alerts.isEmpty {
            lines.append(longLine(report))
        }
        return (state.rawValue, lines.joined(separator: "\n") + "\n")
    }

    private static func summary(_ reports: [HostReport]) -> String {
        guard !reports.isEmpty else { return "no hosts configured" }
        let counts = StatusSummary(reports)
        var parts: [String] = []
        for status in StatusSummary.reportingOrder where counts.count(of: status) > 0 {
            var part = "\(counts.count(of: status)) \(status.rawValue)"
            if status != .ok && status != .unpinned {
                part += " (\(named(reports.filter { $0.status == status }, reason: reason)))"
            }
            parts.append(part)
        }
        // Expiry is an alert, not a status; name it so a WARNING or
        // CRITICAL on an `ok` host is explained on the first line.
        for alert in [HostAlert.expired, .criticalExpiry, .expiring] {
            let hosts = reports.filter { $0.alerts.contains(alert) && (alert != .expiring || !$0.alerts.contains(.criticalExpiry)) }
            guard !hosts.isEmpty else { continue }
            parts.append("\(hosts.count) \(alert.rawValue) (\(named(hosts, reason: expiry)))")
        }
        return parts.joined(separator: ", ")
    }

    private static func named(_ reports: [HostReport], reason: (HostReport) -> String) -> String {
        var names = reports.prefix(hostsNamedPerStatus).map { "\(name($0)) \(reason($0))" }
        if reports.count > hostsNamedPerStatus { names.append("and \(reports.count - hostsNamedPerStatus) more") }
        return names.joined(separator: "; ")
    }

    private static func reason(_ report: HostReport) -> String {
        switch report.status {
        case .leafOnly: return "breaks at next leaf renewal"
        case .blocked:
            if !report.result.trusted {
                return "untrusted" + (report.result.trustError.map { ": \(clean($0))" } ?? "")
            }
            return "no pin matches"
        case .error:
            guard let failure = report.result.failure else { return "no certificate" }
            return "\(failure.kind.rawValue): \(clean(failure.message))"
        case .unpinned: return "has no pins"
        case .ok: return "ok"
        }
    }

    private static func expiry(_ report: HostReport) -> String {
        guard let days = report.leafDaysLeft else { return "" }
        return days < 0 ? "leaf expired \(-days) days ago" : "leaf expires in \(days) days"
    }

    /// `Host:port STATE status: reason [alerts]`, one per host needing attention.
    private static func longLine(_ report: HostReport) -> String {
        var line = "\(name(report)) \(CheckState(report).label) \(report.status.rawValue): \(reason(report))"
        if let days = report.leafDaysLeft { line += "; leaf \(days) days left" }
        if !report.alerts.isEmpty { line += "; alerts: " + report.alerts.map(\.rawValue).joined(separator: ", ") }
        return line
    }

    private static func perfdata(_ reports: [HostReport]) -> String {
        let counts = StatusSummary(reports)
        var items = StatusSummary.reportingOrder.map { "\($0.rawValue)=\(counts.count(of: $0))" }
        for report in reports {
            guard let days = report.leafDaysLeft else { continue }
            // Perfdata labels quote with ' (doubled inside) and cannot hold '='.
            let label = (name(report) + "_days").replacingOccurrences(of: "'", with: "''").replacingOccurrences(of: "=", with: "_")
            items.append("'\(label)'=\(days)")
        }
        return items.joined(separator: " ")
    }

    private static func name(_ report: HostReport) -> String {
        clean(report.config.displayName)
    }

    /// Sanitised for the terminal, and without `|`, which would start the perfdata.
    /// The plugin's answer when it could not run at all (usage or
    /// configuration error): UNKNOWN, exit code 3, one line. The message
    /// may quote the configuration, so it is cleaned like host text.
    public static func unknown(_ message: String) -> (exitCode: Int32, text: String) {
        let firstLine = message.split(separator: "\n", omittingEmptySubsequences: true).first.map(String.init) ?? message
        return (3, "PINWATCH UNKNOWN - \(clean(firstLine))\n")
    }

    private static func clean(_ text: String) -> String {
        TerminalText.sanitize(text).replacingOccurrences(of: "|", with: "/")
    }
}
