import Foundation
import PinwatchCore

/// The detail view's content: one host's whole chain, level by level.
enum DetailLayout {
    /// Every line of the detail view, before scrolling; built once per paint.
    /// `live` false for a picture (`inspect --format svg|html`): nothing
    /// was sent to any clipboard, and no key can be pressed.
    static func lines(for state: DashboardState, hostIndex: Int, now: Date, live: Bool = true) -> [StyledLine] {
        guard state.hosts.indices.contains(hostIndex) else { return [[Span("no such host", Style(.error))]] }
        let host = state.hosts[hostIndex]
        var lines: [StyledLine] = []
        func field(_ label: String, _ spans: Span...) {
            lines.append([Span(" " + label.padding(toLength: 10, withPad: " ", startingAt: 0), Style(.dim))] + spans)
        }
        field("host", Span(host.displayName, Style(.normal, bold: true)), Span("  SNI \(host.serverName)", Style(.dim)))
        if !host.labels.isEmpty {
            let pairs = host.labels.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            field("labels", Span(TerminalText.sanitize(pairs.joined(separator: "  "))))
        }
        if let runbook = host.runbook {
            field("runbook", Span(TerminalText.sanitize(runbook), Style(.dim)))
        }
        guard let report = state.reports[hostIndex] else {
            field("status", Formatting.status(nil), Span("  no result yet", Style(.dim)))
            appendConfiguredPins(host.pins, to: &lines)
            return lines
        }
        if let series = report.series {
            appendSeriesFacts(series, of: report, to: &lines)
        } else {
            field("address", Span(report.result.address ?? "—"))
        }
        field(
            "status", Formatting.status(of: report),
            Span(report.alerts.isEmpty ? "" : "  alerts: " + report.alerts.map(\.rawValue).joined(separator: ", "), Style(.warn)))
        field("severity", Span("\(report.severity.rawValue): \(report.reason)", severityStyle(report.severity)))
        if let acknowledgement = report.acknowledgement {
            field("ack", Span(AcknowledgementText.detail(acknowledgement), Style(.dim)))
        }
        field("matched", Span(Formatting.tiers(report.matchedTiers), report.matchedTiers.contains(.ca) ? Style(.ok) : Style(.warn)))
        if report.series != nil {
            // The instance's verdict above includes trust; the series carry no word of their own for it.
            field("trust", Span(SeriesFacts.notExported, Style(.dim)))
        } else {
            field("trust", Span(TrustText.describe(report.result), report.result.trusted ? Style(.ok) : Style(.critical)))
        }
        if report.proxy.detected {
            var text = report.proxy.url ?? "proxy"
            if let source = report.proxy.source { text += " (from \(source))" }
            if report.proxy.intercepted { text += " — INTERCEPTED: the chain is not the server's" }
            field("proxy", Span(text, report.proxy.intercepted ? Style(.critical) : Style(.proxy)))
        } else {
            field("proxy", Span(report.series == nil ? "none" : SeriesFacts.notExported, Style(.dim)))
        }
        if let failure = report.result.failure {
            field("error", Span("\(failure.kind.rawValue): \(failure.message)", Style(.error)))
        }
        // UTC like every other time of this view and of the snapshot: over
        // ssh the server's zone is rarely the on-call's.
        if let series = report.series {
            field("elapsed", seriesElapsed(series))
        } else {
            field(
                "elapsed", Span("\(WholeNumber.clamped(report.result.elapsed * 1000, .toNearestOrAwayFromZero)) ms"),
                Span("  finished \(DateText.readableUTC(report.result.finishedAt))", Style(.dim)))
        }
        if let history = report.history {
            appendHistory(history, report: report, now: now, to: &lines)
        }
        appendVariants(of: report, to: &lines)
        lines.append([])
        if report.levels.isEmpty {
            lines.append([Span(" chain: none obtained", Style(.normal, bold: true))])
        } else {
            lines.append([Span(" chain: \(report.levels.count) level\(report.levels.count == 1 ? "" : "s")", Style(.normal, bold: true))])
        }
        for level in report.levels {
            appendLevel(level, pins: host.pins, series: report.series, finishedAt: report.result.finishedAt, state: state, to: &lines)
        }
        if report.series != nil {
            appendSeriesPins(to: &lines)
        } else {
            appendConfiguredPins(host.pins, to: &lines)
        }
        appendNextChains(of: report, to: &lines)
        appendTransparency(of: report, now: now, to: &lines)
        appendClients(of: report, to: &lines)
        if let stanza = state.stanzaText {
            lines.append([])
            // OSC 52 reaches the clipboard only where the terminal allows it.
            let title = live ? " pins stanza (sent to the clipboard as OSC 52):" : " pins stanza, ready to paste:"
            lines.append([Span(title, Style(.normal, bold: true))])
            for stanzaLine in stanza.split(separator: "\n", omittingEmptySubsequences: false) {
                lines.append([Span("   " + String(stanzaLine))])
            }
        } else if live, !report.levels.isEmpty {
            lines.append([])
            lines.append([Span(" press y for a ready-to-paste pins: stanza", Style(.dim))])
        }
        return lines
    }

    /// Since when, how often it flapped, when the leaf renews, and the
    /// latest entries of the timeline (`pinwatch history` has them all).
    private static func appendHistory(_ history: HostHistory, report: HostReport, now: Date, to lines: inout [StyledLine]) {
        let status = report.status
        func field(_ label: String, _ spans: Span...) {
            lines.append([Span(" " + label.padding(toLength: 10, withPad: " ", startingAt: 0), Style(.dim))] + spans)
        }
        if let since = history.statusSince {
            let flaps = history.changesLast24Hours
            // The history dates the status; the row shows the headline,
            // so an `ok` host that is expiring says both.
            let current = report.headline.rawValue == status.rawValue ? "" : " (now \(report.headline.rawValue))"
            field(
                "since", Span("status \(status.rawValue) since \(DateText.readableUTC(since))\(current)"),
                Span(flaps == 0 ? "" : "  \(flaps) status change\(flaps == 1 ? "" : "s") in 24 h", Style(.warn)))
        }
        if let renewal = history.renewal {
            field("renewal", renewalSpan(renewal, report: report, now: now))
        }
        if !history.recent.isEmpty {
            field("history", Span("latest changes (all: pinwatch history HOST)", Style(.dim)))
            for entry in history.recent {
                lines.append([Span("   \(DateText.readableUTC(entry.date))  ", Style(.dim)), Span(entry.text)])
            }
        }
    }

    /// A renewal date that has passed while the same leaf is still served
    /// is overdue, not "today": the leaf's days left say how long is left.
    private static func renewalSpan(_ renewal: RenewalEstimate, report: HostReport, now: Date) -> Span {
        guard renewal.date <= now, let days = report.leafDaysLeft else {
            return Span(renewal.text, report.status == .leafOnly ? Style(.warn) : Style(.normal))
        }
        let left = days < 0 ? "the leaf has expired" : "the leaf expires in \(days == 1 ? "1 day" : "\(days) days")"
        return Span("renewal overdue: \(left) and has not been renewed", Style(.warn, bold: true))
    }

    private static func appendLevel(
        _ level: LevelReport, pins: PinSet, series: SeriesFacts?, finishedAt: Date, state: DashboardState,
        to lines: inout [StyledLine]
    ) {
        let role = Formatting.roleStyle(level.role)
        let facts = level.certificate.facts
        // The series do not say whether the server sent a level.
        let origin = series != nil ? nil : level.certificate.fromServer ? "sent by the server" : "from the trust store"
        lines.append([])
        // The ✓/✗ follows the role; "·" (no pins to compare) is left to
        // the pin line below, where it is explained, rather than read as a
        // second separator.
        let symbol = Formatting.matchSymbol(level, pins: pins, series: series)
        lines.append([
            Span(" ── level \(level.level) · \(level.role.rawValue) ", role.with(bold: true)),
            Span(symbol == "·" ? "" : symbol + " ", role.with(bold: true)),
            Span(origin.map { "· \($0) ──" } ?? "──", role),
        ])
        func field(_ label: String, _ spans: Span...) {
            lines.append([Span("   " + label.padding(toLength: 9, withPad: " ", startingAt: 0), Style(.dim))] + spans)
        }
        let rows =
            series.map { seriesRows(level, $0) }
            ?? CertificateDescription(facts, daysLeft: level.daysLeft, countedAt: finishedAt).rows
        for row in rows {
            field(row.label, Span(row.value, style(of: row.meaning, role: role, state: state)))
        }
        if level.matches.isEmpty {
            let text = symbol == "·" ? "· no pins of this tier to compare" : "✗ no configured pin matches"
            field("pin", Span(text, symbol == "·" ? Style(.dim) : Style(.critical)))
        }
        for match in level.matches {
            field("pin", Span("✓ matched \(match.tier == .ca ? "CA" : "leaf") tier: ", Style(.ok)), Span(match.pin.text))
        }
    }

    private static func appendConfiguredPins(_ pins: PinSet, to lines: inout [StyledLine]) {
        lines.append([])
        lines.append([Span(" configured pins", Style(.normal, bold: true))])
        if pins.isEmpty {
            lines.append([Span("   none (inventory mode: copy pins from the chain above)", Style(.dim))])
        }
        for tier in PinTier.allCases {
            for pin in pins.pins(in: tier) {
                lines.append([Span("   \(tier.rawValue.padding(toLength: 5, withPad: " ", startingAt: 0))", Style(.dim)), Span(pin.text)])
            }
        }
        for pin in pins.auto {
            lines.append([Span("   auto ", Style(.dim)), Span(pin.text)])
        }
    }

    /// Each client release's view of this host and what lint says of its pins.
    private static func appendClients(of report: HostReport, to lines: inout [StyledLine]) {
        guard !report.clients.isEmpty else { return }
        lines.append([])
        lines.append([Span(" clients (c: every host)", Style(.normal, bold: true))])
        for verdict in report.clients {
            lines.append(ClientViewLayout.verdictLine(verdict, label: verdict.client))
            if let survival = ClientViewLayout.nextChainLine(verdict) { lines.append(survival) }
        }
        let findings = ClientLint.hostFindings(report)
        guard !findings.isEmpty else { return }
        lines.append([])
        lines.append([Span(" lint", Style(.normal, bold: true))])
        for finding in findings {
            lines.append([
                Span("   \(finding.client): ", Style(.dim)),
                Span(finding.message, Style(finding.level == .error ? .critical : finding.level == .warning ? .warn : .dim)),
                Span("  (\(finding.origin))", Style(.dim)),
            ])
        }
    }

    static func style(of meaning: CertificateDescription.Meaning, role: Style, state: DashboardState) -> Style {
        switch meaning {
        case .subject: return role
        case .plain, .pin: return Style(.normal)
        case .validity(let daysLeft):
            return Formatting.daysStyle(daysLeft, warnDays: state.warnDays, criticalDays: state.criticalDays)
        }
    }

    static func severityStyle(_ severity: HostSeverity) -> Style {
        switch severity {
        case .critical: return Style(.critical, bold: true)
        case .unknown: return Style(.error)
        case .warning: return Style(.warn, bold: true)
        case .ok: return Style(.ok)
        }
    }
}
