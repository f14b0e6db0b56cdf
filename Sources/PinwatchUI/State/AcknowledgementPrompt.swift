import Foundation
import PinwatchCore

/// `a` on a troubled host: the footer asks until when, then why. Both
/// answers are typed text, bounded and kept free of control characters.
package struct AcknowledgementPrompt: Hashable, Sendable {
    package enum Field: Hashable, Sendable {
        case until
        case reason
    }

    /// The host by configuration index.
    package var hostIndex: Int
    package var field: Field = .until
    /// A week: long enough for a planned release, short enough to be seen again.
    package static let defaultUntil = "7d"
    package var until = Self.defaultUntil
    /// The default stands preselected, as readline and dialog boxes offer
    /// one: Enter takes it, the first key typed replaces it, Backspace
    /// clears it. Appending to it would make `7d12h`, a date nobody meant.
    package var untilIsPreselected = true
    package var reason = ""
    /// Why the last Enter was refused, shown until the next key.
    package var problem: String?

    static let untilCharacters = 40

    package init(hostIndex: Int) {
        self.hostIndex = hostIndex
    }
}

extension DashboardState {
    /// `a`: acknowledge the selected host's problem, or remove the
    /// acknowledgement it has (`A` always removes).
    mutating func acknowledgeKey(remove: Bool) -> [DashboardCommand] {
        guard let index = selectedHost, reports.indices.contains(index), let report = reports[index] else {
            footerMessage = "nothing to acknowledge: no result for this host yet"
            return []
        }
        guard canStoreAcknowledgements else {
            footerMessage =
                "cannot acknowledge: history is off (state: off or --state off), and acknowledgements are kept in the history store; "
                + "silence: in the configuration works without it"
            return []
        }
        if report.acknowledgement != nil { return [.removeAcknowledgement(hostIndex: index)] }
        if remove {
            footerMessage = "\(hosts[index].displayName) is not acknowledged"
            return []
        }
        guard report.severity != .ok else {
            footerMessage = "nothing to acknowledge: \(hosts[index].displayName) is ok"
            return []
        }
        footerMessage = nil
        acknowledgementPrompt = AcknowledgementPrompt(hostIndex: index)
        return []
    }

    /// Keys while the footer asks: Enter moves on (then confirms), Esc
    /// cancels, Backspace and ^U edit.
    mutating func handleAcknowledgementPrompt(_ key: Key) -> [DashboardCommand] {
        guard var prompt = acknowledgementPrompt else { return [] }
        prompt.problem = nil
        switch key {
        case .escape:
            acknowledgementPrompt = nil
            footerMessage = "acknowledgement cancelled"
            return []
        case .enter:
            switch prompt.field {
            case .until:
                guard AcknowledgementUntil.isWellFormed(prompt.until) else {
                    prompt.problem = "not a date or duration: write \(AcknowledgementUntil.accepted)"
                    break
                }
                // The controller checks again with its own clock when it
                // stores the acknowledgement; here the person hears it at once.
                if let now = metrics.paintedAt, let until = AcknowledgementUntil.parse(prompt.until, now: now), until <= now {
                    prompt.problem = "\(DateText.readableUTC(until)) is in the past: write a later date or a duration"
                    break
                }
                prompt.field = .reason
                prompt.untilIsPreselected = false
            case .reason:
                let reason = prompt.reason.trimmingCharacters(in: .whitespaces)
                guard !reason.isEmpty else {
                    prompt.problem = "say why, for whoever sees the host dimmed"
                    break
                }
                acknowledgementPrompt = nil
                return [.acknowledge(hostIndex: prompt.hostIndex, until: prompt.until, reason: reason)]
            }
        case .backspace:
            switch prompt.field {
            case .until:
                if prompt.untilIsPreselected { prompt.until = "" } else if !prompt.until.isEmpty { prompt.until.removeLast() }
                prompt.untilIsPreselected = false
            case .reason: if !prompt.reason.isEmpty { prompt.reason.removeLast() }
            }
        case .ctrlU:
            switch prompt.field {
            case .until:
                prompt.until = ""
                prompt.untilIsPreselected = false
            case .reason: prompt.reason = ""
            }
        case .character(let character):
            guard !character.unicodeScalars.contains(where: TerminalText.isControl) else { break }
            switch prompt.field {
            case .until:
                if prompt.untilIsPreselected {
                    prompt.until = ""
                    prompt.untilIsPreselected = false
                }
                if prompt.until.count < AcknowledgementPrompt.untilCharacters { prompt.until.append(character) }
            case .reason: if prompt.reason.count < AcknowledgementPrompt.reasonCharacters { prompt.reason.append(character) }
            }
        default:
            break
        }
        acknowledgementPrompt = prompt
        return []
    }
}

extension AcknowledgementPrompt {
    /// As `silence:`'s reason: one line on a table row.
    package static let reasonCharacters = 200
}
