import PinwatchCore

/// The `c` view: per client release, per host it pins, the status that
/// release sees now, and which one breaks.
enum ClientViewLayout {
    static func lines(for state: DashboardState) -> [StyledLine] {
        guard !state.clients.isEmpty else {
            return [[Span(" no clients: in the configuration (see `pinwatch import --help`)", Style(.dim))]]
        }
        var lines: [StyledLine] = []
        for client in state.clients {
            let verdicts = state.reports.compactMap { report in report?.clients.first { $0.client == client.name } }
            let worst = verdicts.map(\.report.severity).max { $0.rank < $1.rank }
            let troubled = verdicts.filter { $0.report.severity != .ok }
            var summary: String
            if verdicts.isEmpty {
                summary = "no result yet, or pins no monitored host"
            } else if troubled.isEmpty {
                summary = "ok on \(verdicts.count) host\(verdicts.count == 1 ? "" : "s")"
            } else {
                // The headline, as the rows below say it (`expiring`, not `ok`).
                summary = troubled.map { "\($0.report.headline.rawValue) on \($0.report.config.serverName)" }.joined(separator: ", ")
                if troubled.contains(where: { $0.report.headline == .leafOnly }) { summary += " — breaks at next renewal" }
            }
            lines.append([
                Span(" \(client.name)", Style(.normal, bold: true)),
                Span("  \(client.format.title)  ", Style(.dim)),
                Span(summary, worst.map(DetailLayout.severityStyle) ?? Style(.dim)),
            ])
            for verdict in verdicts {
                lines.append(verdictLine(verdict, label: verdict.report.config.displayName))
                if let survival = nextChainLine(verdict) { lines.append(survival) }
            }
            lines.append([])
        }
        return lines
    }

    /// Which next chains this release survives, under its row; none where
    /// the catalogue knows neither the CA nor a provider (all but the leaf
    /// renewal would read "?", and the row already says that much).
    static func nextChainLine(_ verdict: ClientHostVerdict) -> StyledLine? {
        guard let nextChains = verdict.report.nextChains, nextChains.family != nil || nextChains.provider != nil else { return nil }
        let breaks = NextChainText.breaksBeyondRenewal(nextChains)
        return [
            Span("     next chains: ", Style(.dim)),
            Span(NextChainText.survival(nextChains), breaks ? Style(.warn) : Style(.dim)),
        ]
    }

    /// `   label   status   severity: reason`.
    static func verdictLine(_ verdict: ClientHostVerdict, label: String) -> StyledLine {
        let report = verdict.report
        var line: StyledLine = [
            Span("   " + label.padding(toLength: max(label.count, 24), withPad: " ", startingAt: 0) + " "),
            Formatting.status(of: report),
            Span("  \(report.severity.rawValue): \(report.reason)", DetailLayout.severityStyle(report.severity)),
        ]
        if !verdict.enforced { line.append(Span("  (report only)", Style(.dim))) }
        if let expires = verdict.pinsExpire { line.append(Span("  pins expire \(DateText.day(expires))", Style(.dim))) }
        return line
    }
}
