import Foundation

/// Next chains already judged, by everything `NextChainAnalysis.analyse`
/// reads: a poller judges the same chains with the same pins cycle after
/// cycle, and a fleet's hosts mostly share a few intermediates, while the
/// analysis walks the catalogue for each (most of a verdict's cost).
///
/// The key leaves the leaf out but for its issuer and whether any level
/// matched a pin: a next chain carries a fresh leaf that has no key of its
/// own, so only the issuer it names places it on a client's path. The
/// date counts by the catalogue's dates it has passed (`CatalogueHierarchy.changeDates`),
/// the only way the analysis reads it; a judging store of the caller's
/// (`clientStore`) is not memoised. One memo per poller: a reload makes a
/// new one, and a different catalogue empties it.
public final class NextChainMemo: @unchecked Sendable {
    struct Key: Hashable {
        var caLevels: [ChainCertificate]
        var leafIssuer: String
        var refusedToday: Bool
        var pins: PinSet
        var provider: String?
        var systemTrust: Bool
        /// The anchor today's handshake reached, when it verified.
        var anchor: CertificateFacts?
        var trusted: Bool
        var datesPassed: Int
    }

    /// Enough for every distinct chain and pin set of a large fleet; past
    /// it the memo starts over rather than grow.
    static let capacity = 4_096

    private let lock = NSLock()
    private var catalogue: Catalogue?
    private var changeDates: [Date] = []
    private var judged: [Key: NextChains?] = [:]

    public init() {}

    /// The analysis of these inputs, from the memo or from `analyse`
    /// (called on a miss, its result kept).
    func nextChains(
        levels: [LevelReport], pins: PinSet, provider: String?, systemTrust: Bool, anchor: CertificateFacts?, trusted: Bool,
        catalogue: Catalogue, now: Date, analyse: () -> NextChains?
    ) -> NextChains? {
        guard let leaf = levels.first else { return analyse() }
        lock.lock()
        if self.catalogue != catalogue {
            self.catalogue = catalogue
            changeDates = CatalogueHierarchy.changeDates(in: catalogue)
            judged = [:]
        }
        let key = Key(
            caLevels: levels.dropFirst().map(\.certificate), leafIssuer: leaf.certificate.facts.issuer,
            refusedToday: levels.allSatisfy { $0.matches.isEmpty }, pins: pins, provider: provider, systemTrust: systemTrust,
            anchor: anchor, trusted: trusted, datesPassed: changeDates.prefix { $0 <= now }.count)
        if let known = judged[key] {
            lock.unlock()
            return known
        }
        lock.unlock()
        let fresh = analyse()
        lock.lock()
        if self.catalogue == catalogue {
            if judged.count >= Self.capacity { judged = [:] }
            judged[key] = fresh
        }
        lock.unlock()
        return fresh
    }

    /// How many analyses the memo holds (tests).
    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return judged.count
    }
}
