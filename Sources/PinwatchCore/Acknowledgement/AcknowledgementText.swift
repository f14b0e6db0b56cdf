/// An acknowledgement in words, for the detail view and `history`-like
/// listings: `until 2026-12-15 00:00 UTC by ana (2026-11-26 06:10 UTC): release on the 14th`.
public enum AcknowledgementText {
    public static func detail(_ acknowledgement: Acknowledgement) -> String {
        if acknowledgement.source == .instance {
            return "acknowledged on the instance that watches the host (until, by whom and why: \(SeriesFacts.notExported))"
        }
        var text = "until \(DateText.readableUTC(acknowledgement.until))"
        switch acknowledgement.source {
        case .config: text += " (silence: in the configuration)"
        case .dashboard:
            if let by = acknowledgement.by { text += " by \(by)" }
            if let at = acknowledgement.at { text += " (\(DateText.readableUTC(at)))" }
        case .instance: break
        }
        return TerminalText.sanitize(text + ": \(acknowledgement.reason)")
    }
}
