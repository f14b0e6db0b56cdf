import Foundation

/// A host's latest chain change as the history store saw it: facts only,
/// so what a change means (`chain_changed`, how long it holds) is decided
/// here in Core, the same for every store and every test.
public struct ChainChangeFacts: Hashable, Sendable {
    public var previous: ObservedChain
    public var current: ObservedChain
    public var at: Date

    public init(previous: ObservedChain, current: ObservedChain, at: Date) {
        self.previous = previous
        self.current = current
        self.at = at
    }
}

/// A change of the keys above the leaf: what `chain_changed` warns of.
public struct CAKeyChange: Hashable, Sendable {
    /// What changed, for the reason text: `intermediate CN=R11 → CN=R13`.
    public var text: String
    public var at: Date

    /// How long the warning holds after the change: a scrape or a glance
    /// between two cycles must not miss it.
    public static let hold: TimeInterval = 86_400

    /// Nil when the latest change kept the CA-level keys: a later change
    /// (a leaf renewal) ends an earlier warning.
    public init?(_ facts: ChainChangeFacts?) {
        guard let facts, facts.previous.caKeys != facts.current.caKeys else { return nil }
        text = HistoryTimeline.caChange(from: facts.previous, to: facts.current)
        at = facts.at
    }

    public func holds(at now: Date) -> Bool {
        now.timeIntervalSince(at) < Self.hold
    }
}
