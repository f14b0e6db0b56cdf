import Foundation

/// One line of a host's history: `2026-10-02 04:10  leaf key changed (…)`.
public struct TimelineEntry: Hashable, Sendable {
    public enum Kind: String, Sendable {
        case chain
        case status
    }

    public var date: Date
    public var kind: Kind
    public var text: String

    public init(date: Date, kind: Kind, text: String) {
        self.date = date
        self.kind = kind
        self.text = text
    }
}

/// A status as the history recorded it.
public struct RecordedStatus: Hashable, Sendable {
    public var date: Date
    public var status: HostStatus
    public var severity: HostSeverity
    public var reason: String
    /// The word the dashboard showed (`expiring` for an `ok` host whose
    /// leaf ends in 4 days); nil in rows older than the column.
    public var headline: HostHeadline?

    public init(date: Date, status: HostStatus, severity: HostSeverity, reason: String, headline: HostHeadline? = nil) {
        self.date = date
        self.status = status
        self.severity = severity
        self.reason = reason
        self.headline = headline
    }

    /// The headline, or for an older row its status word.
    public var word: String { headline?.rawValue ?? status.rawValue }
}

public enum HistoryTimeline {
    /// Chains (when each was first seen) and status changes, merged in time
    /// order; each chain after the first is described by what changed.
    public static func entries(chains: [(firstSeen: Date, chain: ObservedChain)], statuses: [RecordedStatus]) -> [TimelineEntry] {
        var entries = chainEntries(chains)
        var previousStatus: RecordedStatus?
        for status in statuses.sorted(by: { $0.date < $1.date }) {
            entries.append(statusEntry(status, after: previousStatus))
            previousStatus = status
        }
        // A chain change and the status it caused share a second: chain first.
        return entries.enumerated().sorted { left, right in
            left.element.date != right.element.date ? left.element.date < right.element.date : left.offset < right.offset
        }.map(\.element)
    }

    /// One entry per chain, oldest first: the first described whole, each
    /// later one by what changed.
    public static func chainEntries(_ chains: [(firstSeen: Date, chain: ObservedChain)]) -> [TimelineEntry] {
        var entries: [TimelineEntry] = []
        var previous: ObservedChain?
        for (date, chain) in chains.sorted(by: { $0.firstSeen < $1.firstSeen }) {
            let text: String
            if let previous {
                text = describeChange(from: previous, to: chain).joined(separator: "; ")
            } else {
                text = firstSeen(chain)
            }
            if !text.isEmpty { entries.append(TimelineEntry(date: date, kind: .chain, text: text)) }
            previous = chain
        }
        return entries
    }

    /// `status ok → expiring (critical): …` in the headline words the
    /// dashboard showed, not `ok (critical)`, which reads as a contradiction;
    /// `previous` nil for the first.
    public static func statusEntry(_ status: RecordedStatus, after previous: RecordedStatus?) -> TimelineEntry {
        let change = previous.map { "\($0.word) → \(status.word)" } ?? status.word
        return TimelineEntry(date: status.date, kind: .status, text: "status \(change) (\(status.severity.rawValue)): \(status.reason)")
    }

    /// What differs between two chains of one host, most telling first.
    public static func describeChange(from old: ObservedChain, to new: ObservedChain) -> [String] {
        var changes: [String] = []
        if let before = old.leaf, let after = new.leaf {
            if before.spkiSHA256 != after.spkiSHA256 {
                changes.append("leaf key changed (\(commonName(after.subject)), new \(PinText.sha256(after.spkiSHA256)))")
            } else if before.certSHA256 != after.certSHA256 {
                changes.append("leaf renewed with the same key (\(commonName(after.subject)), until \(DateText.day(after.notAfter)))")
            }
        }
        let oldCA = Array(old.levels.dropFirst())
        let newCA = Array(new.levels.dropFirst())
        for index in 0..<max(oldCA.count, newCA.count) {
            let before = index < oldCA.count ? oldCA[index] : nil
            let after = index < newCA.count ? newCA[index] : nil
            let role = (after ?? before).map { $0.role.rawValue } ?? "level"
            switch (before, after) {
            case (let before?, let after?) where before.spkiSHA256 != after.spkiSHA256:
                changes.append(
                    "\(role) changed \(commonName(before.subject)) → \(commonName(after.subject)) (new \(PinText.sha256(after.spkiSHA256)))"
                )
            case (nil, let after?):
                changes.append("\(role) added: \(commonName(after.subject))")
            case (let before?, nil):
                changes.append("\(role) no longer sent: \(commonName(before.subject))")
            default:
                break
            }
        }
        return changes
    }

    /// The CA levels whose key changed, by name:
    /// `intermediate CN=R11 → CN=R13`; levels that stayed are not named.
    public static func caChange(from old: ObservedChain, to new: ObservedChain) -> String {
        let oldCA = Array(old.levels.dropFirst())
        let newCA = Array(new.levels.dropFirst())
        var parts: [String] = []
        for index in 0..<max(oldCA.count, newCA.count) {
            switch (index < oldCA.count ? oldCA[index] : nil, index < newCA.count ? newCA[index] : nil) {
            case (let before?, let after?) where before.spkiSHA256 != after.spkiSHA256:
                parts.append("\(after.role.rawValue) \(commonName(before.subject)) → \(commonName(after.subject))")
            case (nil, let after?):
                parts.append("\(after.role.rawValue) \(commonName(after.subject)) added")
            case (let before?, nil):
                parts.append("\(before.role.rawValue) \(commonName(before.subject)) no longer sent")
            default:
                break
            }
        }
        return parts.joined(separator: ", ")
    }

    /// `first seen: CN=api… under CN=R11 → CN=Root, leaf sha256/…`.
    public static func firstSeen(_ chain: ObservedChain) -> String {
        "first seen: " + describe(chain)
    }

    static func describe(_ chain: ObservedChain) -> String {
        guard let leaf = chain.leaf else { return "empty chain" }
        let above = chain.levels.dropFirst().map { commonName($0.subject) }
        let issuers = above.isEmpty ? "" : " under " + above.joined(separator: " → ")
        return "\(commonName(leaf.subject))\(issuers), leaf \(PinText.sha256(leaf.spkiSHA256))"
    }

    /// `CN=R13` from `CN=R13,O=Let's Encrypt,C=US`; the whole name when it
    /// has no CN. Sanitised: certificate text is untrusted.
    public static func commonName(_ subject: String) -> String {
        let parts = subject.split(separator: ",", omittingEmptySubsequences: true)
        let name = parts.first { $0.hasPrefix("CN=") }.map(String.init) ?? subject
        return EchoedInput.shortened(name)
    }
}
