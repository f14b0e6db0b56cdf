import Foundation

/// The roots a client trusts, by subject and key: where its path stops.
public struct TrustStore: Hashable, Sendable {
    /// For reasons (`the system store`, `android-13`).
    public var name: String
    public var anchors: [CertificateFacts]
    /// Roots known to be missing from it (Root YR before any store took it in).
    public var absent: [CertificateFacts]
    /// Whether a self-signed root it neither holds nor lacks, as far as the
    /// data knows, counts as held: a store known only in part (the system
    /// store through the catalogue, a `trust:` bundle through the anchor
    /// today's chain reached) is taken to hold the roots its owner chose.
    public var assumesUnlistedRoots: Bool

    public init(name: String, anchors: [CertificateFacts], absent: [CertificateFacts] = [], assumesUnlistedRoots: Bool = false) {
        self.name = name
        self.anchors = anchors
        self.absent = absent
        self.assumesUnlistedRoots = assumesUnlistedRoots
    }

    /// Whether the store holds this certificate: same subject and same key,
    /// as Android's TrustManagerImpl and OkHttp's chain cleaner compare.
    public func holds(_ facts: CertificateFacts) -> Bool {
        if anchors.contains(where: { Self.same($0, facts) }) { return true }
        return assumesUnlistedRoots && facts.isSelfSigned && !absent.contains { Self.same($0, facts) }
    }

    private static func same(_ one: CertificateFacts, _ other: CertificateFacts) -> Bool {
        one.subject == other.subject && one.spkiSHA256 == other.spkiSHA256
    }

    /// The store's certificate that issued `facts`, if it holds one.
    func issuer(of facts: CertificateFacts) -> CertificateFacts? { anchors.first { $0.subject == facts.issuer } }

    /// The same store with `root` added (a root a store may take in later).
    public func adding(_ root: CertificateFacts) -> TrustStore {
        var store = self
        store.anchors.append(root)
        store.absent.removeAll { Self.same($0, root) }
        return store
    }
}

/// The path a client validates and checks its pins against: from the
/// leaf, issuer by issuer through what the server sent, preferring the
/// store's own certificate for each issuer, and cut at the first
/// certificate the store holds. Every pin verdict of pinwatch (today's
/// chain, each next chain, the recommended pins) is taken on such a path,
/// never on a catalogue key that merely could be on some path.
public struct ClientPath: Hashable, Sendable {
    /// Leaf first; the last is the store's certificate when `anchored`.
    public var certificates: [CertificateFacts]
    /// False when no certificate of the path is in the store: a client
    /// refuses the chain whatever it pins.
    public var anchored: Bool

    public init(certificates: [CertificateFacts], anchored: Bool) {
        self.certificates = certificates
        self.anchored = anchored
    }

    /// Beyond this many levels a served chain is a loop or an attack.
    static let maximumDepth = 10

    public static func build(served: [CertificateFacts], store: TrustStore) -> ClientPath {
        guard let leaf = served.first else { return ClientPath(certificates: [], anchored: false) }
        var path = [leaf]
        var remaining = Array(served.dropFirst())
        while path.count <= maximumDepth, let current = path.last {
            if store.holds(current) { return ClientPath(certificates: path, anchored: true) }
            if let anchor = store.issuer(of: current) {
                return ClientPath(certificates: path + [anchor], anchored: true)
            }
            // A self-signed certificate the store does not hold ends the path.
            if path.count > 1 && current.isSelfSigned { break }
            guard let next = remaining.firstIndex(where: { $0.subject == current.issuer }) else { break }
            path.append(remaining.remove(at: next))
        }
        return ClientPath(certificates: path, anchored: false)
    }

    /// The first pin that matches a certificate of the path.
    public func carrier(among pins: [Pin]) -> Pin? {
        pins.first { pin in certificates.contains { $0.digest(for: pin.kind) == pin.digest } }
    }
}
