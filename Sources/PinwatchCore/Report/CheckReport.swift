/// `pinwatch check`: one Nagios/Icinga plugin result (DESIGN §7).
///
/// The library returns the text and the exit code; the executable prints
/// and exits, so the mapping is testable. Every state and sentence comes
/// from the hosts' `severity` and `reason`: nothing here decides urgency.
public enum CheckReport {
    /// Hosts named on the first line; the rest are counted, and listed in the long output.
    static let hostsNamedOnFirstLine = 3
    /// A reason longer than this is shortened on the first line, which
    /// Nagios and Icinga page with on its own.
    static let reasonCharacters = 120

    /// - Parameter nextChains: add which next chains each host's pins
    ///   survive (`check --client`: what one release survives).
    public static func render(
        _ reports: [HostReport], warnDays: Int = 21, criticalDays: Int = 7, nextChains: Bool = false
    ) -> (exitCode: Int32, text: String) {
        // Monitoring nothing is not fine: a truncated file must not turn paging off.
        guard !reports.isEmpty else { return unknown("no hosts configured") }
        // An acknowledged host is a known problem: it neither sets the state nor is named first.
        let unacknowledged = reports.filter { $0.acknowledgement == nil }
        let acknowledged = reports.count - unacknowledged.count
        let worst = unacknowledged.map(\.severity).max { $0.rank < $1.rank } ?? .ok
        let state = CheckState(worst)
        var lines = [
            "PINWATCH \(state.label) - \(headline(unacknowledged, worst: worst, acknowledged: acknowledged)) | "
                + perfdata(reports, warnDays: warnDays, criticalDays: criticalDays)
        ]
        for report in worstFirst(reports) where nextChains || report.severity != .ok || !report.alerts.isEmpty {
            lines.append(longLine(report) + acknowledgement(report) + (nextChains ? survival(report) : ""))
        }
        return (state.rawValue, lines.joined(separator: "\n") + "\n")
    }

    /// Hosts by severity, worst first, configuration order within one.
    private static func worstFirst(_ reports: [HostReport]) -> [HostReport] {
        reports.enumerated()
            .sorted { ($1.element.severity.rank, $0.offset) < ($0.element.severity.rank, $1.offset) }
            .map(\.element)
    }

    /// The worst hosts with their reasons, then the counts by severity.
    private static func headline(_ reports: [HostReport], worst: HostSeverity, acknowledged: Int) -> String {
        let acknowledgedCount = acknowledged > 0 ? ["\(acknowledged) acknowledged"] : []
        let counts = ([SeveritySummary(reports).text] + acknowledgedCount).joined(separator: ", ")
        guard worst != .ok else {
            let statuses = StatusSummary(reports)
            let parts = [HostStatus.ok, .unpinned].filter { statuses.count(of: $0) > 0 }.map { "\(statuses.count(of: $0)) \($0.rawValue)" }
            let total = reports.count + acknowledged
            return "\(total) host\(total == 1 ? "" : "s") fine (\((parts + acknowledgedCount).joined(separator: ", ")))"
        }
        let troubled = worstFirst(reports).filter { $0.severity != .ok }
        var named = troubled.prefix(hostsNamedOnFirstLine).map { "\(name($0)) \(shortened(clean($0.reason)))" }
        if troubled.count > hostsNamedOnFirstLine { named.append("+\(troubled.count - hostsNamedOnFirstLine) more") }
        return named.joined(separator: "; ") + " (\(counts))"
    }

    /// `host:port STATE headline: reason; leaf N days left; alerts: …`; the
    /// level that expires first when it is not the leaf. The headline, not
    /// the status, so the line never reads `CRITICAL ok` for an ok chain
    /// whose leaf is about to expire: it says what the table's cell says.
    private static func longLine(_ report: HostReport) -> String {
        var line = "\(name(report)) \(CheckState(report).label) \(report.headline.rawValue): \(clean(report.reason))"
        if let expiry = report.earliestExpiry {
            // An expired leaf is `leaf expired 25 days ago`, never `-25 days left`.
            line += expiry.isLeaf && expiry.daysLeft >= 0 ? "; leaf \(expiry.daysLeft) days left" : "; \(clean(expiry.shortSentence))"
        }
        if !report.alerts.isEmpty { line += "; alerts: " + report.alerts.map(\.rawValue).joined(separator: ", ") }
        return line
    }

    /// `; acknowledged until 2026-12-15 00:00 UTC by ana: release on the 14th`.
    private static func acknowledgement(_ report: HostReport) -> String {
        guard let acknowledgement = report.acknowledgement else { return "" }
        let by = acknowledgement.by.map { " by \(clean($0))" } ?? ""
        return "; acknowledged until \(DateText.readableUTC(acknowledgement.until))\(by): \(clean(acknowledgement.reason))"
    }

    private static func survival(_ report: HostReport) -> String {
        report.nextChains.map { "; next chains: " + clean(NextChainText.survival($0)) } ?? ""
    }

    /// Counts per status, then each host's days left (its chain's earliest
    /// expiry, as the alerts) with the warning and critical thresholds, so
    /// graphs draw the lines where the alerts fire. Days left alert when
    /// they fall low, so the thresholds are the plugin ranges `21:` and `7:`
    /// ("outside 21 to infinity"): a bare `21` means "outside 0 to 21",
    /// which rates every healthy host as a problem.
    private static func perfdata(_ reports: [HostReport], warnDays: Int, criticalDays: Int) -> String {
        let counts = StatusSummary(reports)
        var items = StatusSummary.reportingOrder.map { "\($0.rawValue)=\(counts.count(of: $0))" }
        for report in reports {
            guard let days = report.daysLeft else { continue }
            // Perfdata labels quote with ' (doubled inside) and cannot hold '='.
            let label = (name(report) + "_days").replacingEach("'", with: "''").replacingEach("=", with: "_")
            items.append("'\(label)'=\(days);\(warnDays):;\(criticalDays):")
        }
        return items.joined(separator: " ")
    }

    private static func name(_ report: HostReport) -> String {
        clean(report.config.displayName)
    }

    private static func shortened(_ text: String) -> String {
        text.count <= reasonCharacters ? text : String(text.prefix(reasonCharacters - 1)) + "…"
    }

    /// The plugin's answer when it could not run at all (usage or
    /// configuration error) or has nothing to watch: UNKNOWN, exit code 3,
    /// one line. The message may quote the configuration, so it is cleaned
    /// like host text.
    public static func unknown(_ message: String) -> (exitCode: Int32, text: String) {
        let firstLine = message.split(separator: "\n", omittingEmptySubsequences: true).first.map(String.init) ?? message
        return (3, "PINWATCH UNKNOWN - \(clean(firstLine))\n")
    }

    /// Sanitised for the terminal, and without `|`, which would start the perfdata.
    private static func clean(_ text: String) -> String {
        TerminalText.sanitize(text).replacingEach("|", with: "/")
    }
}

extension String {
    /// Every `character` replaced. Not Foundation's `replacingOccurrences`,
    /// which goes through NSString, costly on its first calls in a one-host
    /// `check` (Benchmarks/README.md, "Figures moved out of code comments").
    func replacingEach(_ character: Character, with replacement: String) -> String {
        guard contains(character) else { return self }
        var result = ""
        result.reserveCapacity(utf8.count + replacement.utf8.count)
        for each in self {
            if each == character { result += replacement } else { result.append(each) }
        }
        return result
    }
}
