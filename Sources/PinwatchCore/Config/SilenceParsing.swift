import Foundation
import Yams

extension ConfigDocumentParser {
    static let silenceKeys = ["until", "reason"]
    /// A reason is one line on the table and in a hook: a paragraph belongs in a runbook.
    static let silenceReasonCharacters = 200

    /// `silence: {until: 2026-12-15, reason: "…"}` of one host.
    mutating func silence(_ node: Node, key: @autoclosure () -> String) -> HostSilence? {
        guard let pairs = mapping(node, key: key()) else { return nil }
        var until: Date?
        var reason: String?
        var valid = true
        for pair in pairs {
            switch pair.key {
            case "until":
                guard let text = string(pair.value, key: "\(key()).until") else {
                    valid = false
                    continue
                }
                until = AcknowledgementUntil.parseDate(text)
                if until == nil {
                    report(
                        pair.value, key: "\(key()).until",
                        "\(EchoedInput.quoted(text)) is not a date: write 2026-12-15 (the end of that day in UTC) "
                            + "or an RFC 3339 time such as 2026-12-15T18:00:00Z")
                    valid = false
                }
            case "reason":
                guard let text = string(pair.value, key: "\(key()).reason") else {
                    valid = false
                    continue
                }
                if text.count > Self.silenceReasonCharacters {
                    report(
                        pair.value, key: "\(key()).reason",
                        "longer than \(Self.silenceReasonCharacters) characters (a link to a runbook says more)")
                    valid = false
                }
                reason = text
            default:
                report(pair.keyNode, key: "\(key()).\(pair.key)", "unknown key" + DidYouMean.hint(pair.key, among: Self.silenceKeys))
                valid = false
            }
        }
        if !pairs.contains(where: { $0.key == "until" }) {
            report(node, key: "\(key()).until", "missing (a silence ends on a date: until: 2026-12-15)")
            valid = false
        }
        if !pairs.contains(where: { $0.key == "reason" }) {
            report(node, key: "\(key()).reason", "missing (say why, for whoever sees the host dimmed)")
            valid = false
        }
        guard valid, let until, let reason else { return nil }
        return HostSilence(until: until, reason: reason)
    }
}
