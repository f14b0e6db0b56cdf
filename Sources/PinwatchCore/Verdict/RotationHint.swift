/// What a blocked host's reason adds when its chain moved to other CA
/// keys (a pool rotation, a switch of CA): what changed, what the
/// configured pins matched before, and which level of the chain served now
/// a pin would have to name. "No configured pin matches the chain" alone
/// leaves the on-call to diff two chains by hand.
enum RotationHint {
    /// Nil unless the history's latest chain change moved the CA-level keys.
    static func text(pins: PinSet, history: HostHistory?, levels: [LevelReport]) -> String? {
        guard let facts = history?.latestChainChange, let change = history?.caKeyChange else { return nil }
        var parts = ["the chain moved \(DateText.day(change.at)) (\(change.text))"]
        let configured = pins.all
        let matchedBefore = facts.previous.levels.enumerated().filter { _, level in
            configured.contains { pin in pin.matches(level) }
        }
        if let before = matchedBefore.first {
            parts.append("the configured pins matched the \(before.element.role.rawValue) \(name(before.element.subject)) before")
        }
        // Above the leaf, the levels served now whose key was in the chain before the move: a pin there survives it.
        let keptKeys = Set(facts.previous.levels.dropFirst().map(\.spkiSHA256))
        let kept = levels.dropFirst().filter { keptKeys.contains($0.certificate.facts.spkiSHA256) }
        if let level = kept.last {
            parts.append(
                "a CA pin on the \(level.role.rawValue) \(name(level.certificate.facts.subject)) (level \(level.level)), "
                    + "which did not move, would match")
        } else if let level = levels.dropFirst().last {
            parts.append(
                "no CA key was kept: a CA pin on the \(level.role.rawValue) \(name(level.certificate.facts.subject)) "
                    + "(level \(level.level)) would match now")
        }
        return parts.joined(separator: "; ")
    }

    private static func name(_ subject: String) -> String {
        HistoryTimeline.commonName(subject)
    }
}

extension Pin {
    /// Whether this pin names that recorded certificate: the digests the
    /// history keeps (SPKI and whole certificate).
    fileprivate func matches(_ certificate: ObservedCertificate) -> Bool {
        switch kind {
        case .spki: return digest == certificate.spkiSHA256
        case .cert: return digest == certificate.certSHA256
        default: return false
        }
    }
}
