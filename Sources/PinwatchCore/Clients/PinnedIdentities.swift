import Foundation

/// Apple's `NSPinnedCAIdentities` and `NSPinnedLeafIdentities` for one
/// `NSPinnedDomains` entry. Unlike every other format, they are two
/// checks, and ATS refuses the chain unless each one that is given
/// passes. They are pinwatch's CA and leaf tiers, written by the app.
public struct PinnedIdentities: Hashable, Sendable {
    /// Nil when the key is absent; empty when present with no identity
    /// that counts, which refuses every chain.
    public var ca: [Pin]?
    public var leaf: [Pin]?

    public init(ca: [Pin]?, leaf: [Pin]?) {
        self.ca = ca
        self.leaf = leaf
    }

    /// Every deciding entry's identities together, as the Security
    /// framework collects them for a host (a list is given when any entry
    /// gives it).
    public static func united(_ all: [PinnedIdentities]) -> PinnedIdentities {
        func union(_ lists: [[Pin]?]) -> [Pin]? {
            let given = lists.compactMap { $0 }
            guard !given.isEmpty else { return nil }
            var seen = Set<Pin>()
            return given.flatMap { $0 }.filter { seen.insert($0).inserted }
        }
        return PinnedIdentities(ca: union(all.map(\.ca)), leaf: union(all.map(\.leaf)))
    }

    /// The CA check: some certificate of the built chain other than the
    /// leaf (the anchor included) has a listed key; a chain of the leaf
    /// alone fails it.
    public func caCheckPasses(_ chain: [ChainCertificate]) -> Bool {
        guard let ca else { return true }
        return chain.dropFirst().contains { certificate in ca.contains { certificate.facts.digest(for: $0.kind) == $0.digest } }
    }

    /// The leaf check: the leaf's key is listed.
    public func leafCheckPasses(_ chain: [ChainCertificate]) -> Bool {
        guard let leaf else { return true }
        guard let first = chain.first else { return false }
        return leaf.contains { first.facts.digest(for: $0.kind) == $0.digest }
    }

    /// The verdict's words for the two checks: which list is which tier,
    /// and what each said of `chain`.
    public func explanation(of chain: [ChainCertificate]) -> String {
        var parts: [String] = []
        if ca != nil {
            parts.append("NSPinnedCAIdentities, the CA tier: " + (caCheckPasses(chain) ? "matches" : "no match above the leaf"))
        }
        if leaf != nil {
            parts.append("NSPinnedLeafIdentities, the leaf tier: " + (leafCheckPasses(chain) ? "matches" : "no match"))
        }
        return "ATS " + parts.joined(separator: "; ") + (parts.count == 2 ? "; both must match" : "")
    }
}

extension ClientVerdicts {
    /// ATS's judgement of a chain: each given list passes, on a chain the
    /// system trusts. A leaf list makes every leaf key change a break.
    static func atsStatus(
        _ identities: PinnedIdentities, plain: HostReport
    ) -> (status: HostStatus, alerts: [HostAlert]) {
        var alerts = plain.alerts
        guard plain.status != .error else { return (plain.status, alerts) }
        let chain = plain.result.chain
        let pinsPass = identities.caCheckPasses(chain) && identities.leafCheckPasses(chain)
        alerts.removeAll { $0 == .leafOnly || $0 == .noMatch }
        if !pinsPass { alerts.insert(.noMatch, at: 0) }
        guard plain.result.trusted, pinsPass else { return (.blocked, alerts) }
        if identities.leaf != nil {
            alerts.insert(.leafOnly, at: 0)
            return (.leafOnly, alerts)
        }
        return (.ok, alerts)
    }
}
