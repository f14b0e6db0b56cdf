/// A pinned digest, whichever form it was written in.
///
/// Every form in DESIGN §3 reduces to one SHA-256 over one view of a
/// certificate; `kind` says which view, so matching never compares a key
/// digest with a certificate digest.
public struct Pin: Hashable, Sendable {
    public enum Kind: String, Sendable, CaseIterable {
        /// SHA-256 of the DER SubjectPublicKeyInfo (`sha256/`, `spki:`).
        case spki
        /// SHA-256 of the raw public key bytes (`key:`).
        case key
        /// SHA-256 of the whole DER certificate (`cert:`, `file:`).
        case cert
        /// SHA-1 of the DER SubjectPublicKeyInfo (`sha1/`): legacy OkHttp 2
        /// and HPKP drafts. Recognised so imported pins still match, and
        /// linted, as modern clients no longer accept it.
        case spkiSHA1 = "spki_sha1"

        /// 20 bytes for SHA-1, 32 for the SHA-256 forms.
        public var digestLength: Int { self == .spkiSHA1 ? 20 : 32 }
    }

    public let kind: Kind
    /// `kind.digestLength` bytes.
    public let digest: [UInt8]
    /// The pin as written in the configuration (for a `file:` pin, the
    /// `cert:` form of one certificate of the file), used in reports.
    public let text: String

    public init(kind: Kind, digest: [UInt8], text: String) {
        self.kind = kind
        self.digest = digest
        self.text = text
    }
}

/// The two pin tiers of DESIGN §1.
public enum PinTier: String, Sendable, CaseIterable, Codable {
    /// Root and intermediate keys: survive leaf renewals.
    case ca
    /// Leaf keys: change at every renewal with a new key.
    case leaf
}

public struct PinSet: Hashable, Sendable {
    public var ca: [Pin]
    public var leaf: [Pin]
    /// `auto:`: pins whose tier the live chain decides (imported from a
    /// client, which does not say): one that matches the leaf level counts
    /// as a leaf pin, one that matches any other level as a CA pin.
    public var auto: [Pin]

    public init(ca: [Pin] = [], leaf: [Pin] = [], auto: [Pin] = []) {
        self.ca = ca
        self.leaf = leaf
        self.auto = auto
    }

    public var isEmpty: Bool { ca.isEmpty && leaf.isEmpty && auto.isEmpty }

    /// Every pin, whatever its tier, without repeats.
    public var all: [Pin] {
        var seen = Set<Pin>()
        return (ca + leaf + auto).filter { seen.insert($0).inserted }
    }

    public func pins(in tier: PinTier) -> [Pin] {
        switch tier {
        case .ca: return ca
        case .leaf: return leaf
        }
    }

    /// Union that keeps the first occurrence of each pin, so a host that
    /// repeats a pin of its pinset does not report it twice.
    public func merged(with other: PinSet) -> PinSet {
        func union(_ a: [Pin], _ b: [Pin]) -> [Pin] {
            // A pin set holds a few pins: comparing them beats hashing them
            // (this runs several times for every host of a configuration).
            guard a.count + b.count > 16 else {
                var kept: [Pin] = []
                kept.reserveCapacity(a.count + b.count)
                for pin in a where !kept.contains(pin) { kept.append(pin) }
                for pin in b where !kept.contains(pin) { kept.append(pin) }
                return kept
            }
            var seen = Set<Pin>()
            return (a + b).filter { seen.insert($0).inserted }
        }
        return PinSet(ca: union(ca, other.ca), leaf: union(leaf, other.leaf), auto: union(auto, other.auto))
    }
}
