import Foundation
import PinwatchCore

/// The detail view of a row rebuilt from another instance's series: what
/// the series say, and "not exported" where they say nothing, never a
/// default that reads as a fact (a `0001-01-01` start of validity, `0 ms`).
extension DetailLayout {
    static func appendSeriesFacts(_ series: SeriesFacts, of report: HostReport, to lines: inout [StyledLine]) {
        func field(_ label: String, _ spans: Span...) {
            lines.append([Span(" " + label.padding(toLength: 10, withPad: " ", startingAt: 0), Style(.dim))] + spans)
        }
        if let instance = series.instance {
            field("instance", Span(TerminalText.sanitize(instance)))
        }
        if let since = series.staleSince {
            field("stale", Span("instance gone: last known state, from \(DateText.readableUTC(since))", Style(.warn, bold: true)))
        }
        if let address = report.config.connectAddress {
            field("address", Span(TerminalText.sanitize(address)))
        } else if series.probes.isEmpty {
            field("address", Span(SeriesFacts.notExported, Style(.dim)))
        } else {
            field("address", Span("\(series.probes.count) probe\(series.probes.count == 1 ? "" : "s")", Style(.dim)))
            for probe in series.probes {
                let label = probe.address + (probe.keyType.map { " (\($0))" } ?? "")
                lines.append([
                    Span("   " + TerminalText.sanitize(label).padding(toLength: max(label.count, 24), withPad: " ", startingAt: 0) + "  "),
                    Formatting.status(probe.status),
                ])
            }
        }
    }

    static func seriesElapsed(_ series: SeriesFacts) -> Span {
        guard let elapsed = series.elapsed else { return Span(SeriesFacts.notExported, Style(.dim)) }
        return Span("\(WholeNumber.clamped(elapsed * 1000, .toNearestOrAwayFromZero)) ms")
    }

    /// A level's rows with only what the series carry: subject, expiry and
    /// SPKI pin.
    static func seriesRows(_ level: LevelReport, _ series: SeriesFacts) -> [CertificateDescription.Row] {
        let facts = level.certificate.facts
        let notExported = SeriesFacts.notExported
        let validity: CertificateDescription.Row =
            series.datedLevels.contains(level.level)
            ? CertificateDescription.Row(
                label: "valid",
                value:
                    "until \(DateText.readableUTC(facts.notAfter)) (\(CertificateDescription.daysText(level.daysLeft))); from: \(notExported)",
                meaning: .validity(daysLeft: level.daysLeft))
            : CertificateDescription.Row(label: "valid", value: notExported, meaning: .plain)
        var rows = [
            CertificateDescription.Row(label: "subject", value: facts.subject.isEmpty ? notExported : facts.subject, meaning: .subject),
            CertificateDescription.Row(label: "issuer", value: notExported, meaning: .plain),
            validity,
            CertificateDescription.Row(label: "key", value: notExported, meaning: .plain),
        ]
        if facts.spkiSHA256.count == 32 {
            let forms = PinForms(facts)
            rows.append(CertificateDescription.Row(label: "pins", value: forms.sha256, meaning: .pin))
            rows.append(CertificateDescription.Row(label: "", value: forms.spki, meaning: .pin))
        } else {
            rows.append(CertificateDescription.Row(label: "pins", value: notExported, meaning: .plain))
        }
        return rows
    }

    static func appendSeriesPins(to lines: inout [StyledLine]) {
        lines.append([])
        lines.append([Span(" configured pins", Style(.normal, bold: true))])
        lines.append([Span("   \(SeriesFacts.notExported) (they are in the instance's configuration)", Style(.dim))])
    }
}
