import Foundation
import PinwatchCore

extension DetailLayout {
    /// The certificates Certificate Transparency logged for the host
    /// (`ct:`), newest first, each with the releases it breaks: the next
    /// chain before the server sends it. Certificate text reaches the
    /// frame, which sanitises every cell it puts.
    static func appendTransparency(of report: HostReport, now: Date, to lines: inout [StyledLine]) {
        guard let ct = report.ct else { return }
        lines.append([])
        lines.append([Span(" certificate transparency", Style(.normal, bold: true))])
        for log in ct.misbehavingLogs {
            lines.append([
                Span("   ✗ ", Style(.warn, bold: true)), Span("log \(log) failed verification: its entries are ignored", Style(.warn)),
            ])
        }
        if ct.logged.isEmpty {
            lines.append([Span("   nothing logged for this name since pinwatch started following", Style(.dim))])
        }
        for logged in ct.logged {
            let breaks = !logged.verdict.breaks.isEmpty
            let kind = logged.precertificate ? "precert" : "cert"
            lines.append([
                Span("   " + DateText.readableUTC(logged.loggedAt) + "  ", Style(.dim)),
                Span(breaks ? "✗ " : "✓ ", breaks ? Style(.warn, bold: true) : Style(.ok)),
                Span("\(kind) \(logged.serial) under \(logged.issuer)"),
            ])
            lines.append([
                Span("     \(logged.log), valid \(DateText.day(logged.notBefore)) to \(DateText.day(logged.notAfter)): ", Style(.dim)),
                Span(CTLoggedText.verdict(logged), breaks ? Style(.warn) : Style(.dim)),
            ])
        }
    }
}
