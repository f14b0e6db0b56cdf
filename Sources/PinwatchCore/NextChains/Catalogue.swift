import Foundation

/// The signature family a CA issues under. A pool rotates only among
/// intermediates of the leaf's own family: an RSA leaf is not reissued under
/// an ECDSA intermediate by a rotation (that is a key-type change).
public enum KeyFamily: String, Sendable, Hashable, CaseIterable {
    case rsa
    case ecdsa
    case other

    /// From `CertificateFacts.keyDescription` (`RSA 2048`, `ECDSA P-256`, …).
    public init(keyDescription: String) {
        let lowered = keyDescription.lowercased()
        if lowered.hasPrefix("rsa") {
            self = .rsa
        } else if lowered.hasPrefix("ec") {
            self = .ecdsa
        } else {
            self = .other
        }
    }
}

/// One certificate of the catalogue, read from a file the code parsed (pins
/// are never typed: they come from `facts`).
public struct CatalogueCertificate: Hashable, Sendable {
    /// Short name used in reasons: the subject's CN (`R10`, `ISRG Root X1`).
    public var name: String
    public var facts: CertificateFacts
    /// Where the file lives (for messages), as given to the loader.
    public var file: String
    /// Where the CA publishes it (a URL), when the catalogue says.
    public var published: String? = nil
    /// Whether Debian's system store holds it (a root); nil when not said.
    public var inSystemStore: Bool? = nil

    public init(name: String, facts: CertificateFacts, file: String) {
        self.name = name
        self.facts = facts
        self.file = file
    }

    public var keyFamily: KeyFamily { KeyFamily(keyDescription: facts.keyDescription) }

    /// Whether `pin` names this certificate (in any pin form).
    public func matches(_ pin: Pin) -> Bool { facts.digest(for: pin.kind) == pin.digest }

    /// Whether this is the same CA key as `other` (a cross-sign or a
    /// reissued certificate carries the key of the original).
    public func sharesKey(with other: CertificateFacts) -> Bool { facts.spkiSHA256 == other.spkiSHA256 }
}

/// An intermediate the family issues from, and whether it is in use.
public struct CatalogueIntermediate: Hashable, Sendable {
    public enum State: String, Sendable, Hashable {
        /// Issuing today: any renewal may land on it.
        case active
        /// Created and announced as a backup: issuance may move to it.
        case standby
        /// Retired: no new leaf is issued under it.
        case retired
    }

    /// A state from one date until another, as the CA published it.
    public struct Period: Hashable, Sendable {
        public var state: State
        public var from: Date?
        /// Exclusive: the first day the period no longer holds.
        public var until: Date?
        /// Where the CA says so (a URL), for `catalogue show`.
        public var source: String?

        public init(state: State, from: Date? = nil, until: Date? = nil, source: String? = nil) {
            self.state = state
            self.from = from
            self.until = until
            self.source = source
        }

        public func holds(on date: Date) -> Bool {
            (from.map { $0 <= date } ?? true) && (until.map { date < $0 } ?? true)
        }
    }

    public var certificate: CatalogueCertificate
    /// The state when no dated period covers the judging date.
    public var state: State
    /// Dated states; the first that holds on a date wins over `state`.
    public var periods: [Period]
    /// The `name` of the family root (or transition root) it chains to.
    public var root: String
    /// The cross-signs the CA sends after it (Root YR signed by ISRG Root
    /// X1 after YR1): a client builds its path from what is sent, so these
    /// decide which root a pinning client reaches.
    public var servedWith: [CatalogueCertificate]

    public init(
        certificate: CatalogueCertificate, state: State, root: String, periods: [Period] = [],
        servedWith: [CatalogueCertificate] = []
    ) {
        self.certificate = certificate
        self.state = state
        self.root = root
        self.periods = periods
        self.servedWith = servedWith
    }

    /// The state in force on `date`.
    public func state(on date: Date) -> State { periods.first { $0.holds(on: date) }?.state ?? state }

    /// What the CA sends for a leaf under it: the intermediate, then its
    /// cross-signs; a first cross-sign of the intermediate itself (E6 signed
    /// by ISRG Root X1) is sent in its place.
    public var servedChain: [CertificateFacts] {
        if let first = servedWith.first, first.facts.subject == certificate.facts.subject, certificate.sharesKey(with: first.facts) {
            return servedWith.map(\.facts)
        }
        return [certificate.facts] + servedWith.map(\.facts)
    }
}

/// A dated move of issuance to a new hierarchy (a new root generation).
public struct CatalogueTransition: Hashable, Sendable {
    public var name: String
    /// When issuance moves (or may move) to the new hierarchy.
    public var effective: Date
    public var roots: [CatalogueCertificate]
    public var intermediates: [CatalogueIntermediate]
    /// Where it was announced (a URL), for the reason and `catalogue show`.
    public var source: String

    public init(
        name: String, effective: Date, roots: [CatalogueCertificate], intermediates: [CatalogueIntermediate],
        source: String
    ) {
        self.name = name
        self.effective = effective
        self.roots = roots
        self.intermediates = intermediates
        self.source = source
    }
}

/// The longest lifetime a family issues from a date on (its own schedule,
/// tighter than the CA/Browser Forum cap).
public struct LifetimeStep: Hashable, Sendable {
    public var from: Date
    public var days: Int
    public var source: String

    public init(from: Date, days: Int, source: String) {
        self.from = from
        self.days = days
        self.source = source
    }
}

/// One CA family: its roots, cross-signs, issuing pool and announced
/// transitions.
public struct CatalogueFamily: Hashable, Sendable {
    /// Unique key (`letsencrypt`, `corp`).
    public var name: String
    /// For people (`Let's Encrypt`).
    public var displayName: String
    public var roots: [CatalogueCertificate] { didSet { gather() } }
    /// Root keys signed by another root (ISRG Root X2 by X1): a client
    /// pinning either key still matches such a chain.
    public var crossSigns: [CatalogueCertificate] { didSet { gather() } }
    public var intermediates: [CatalogueIntermediate] { didSet { gather() } }
    public var transitions: [CatalogueTransition] { didSet { gather() } }
    public var lifetimes: [LifetimeStep]
    /// When the data was retrieved; nil for a user's family.
    public var retrieved: Date?
    /// The date of the CCADB reports its issuer graph was derived from
    /// (`ccadb.yaml`'s `as_of`); nil for a family written by hand only.
    public var dataDate: Date? = nil
    /// `built-in`, `user` (`$XDG_DATA_HOME`) or `config` (the `catalogue:` key).
    public var origin: String

    public init(
        name: String, displayName: String, roots: [CatalogueCertificate], crossSigns: [CatalogueCertificate] = [],
        intermediates: [CatalogueIntermediate], transitions: [CatalogueTransition] = [],
        lifetimes: [LifetimeStep] = [], retrieved: Date? = nil, origin: String
    ) {
        self.name = name
        self.displayName = displayName
        self.roots = roots
        self.crossSigns = crossSigns
        self.intermediates = intermediates
        self.transitions = transitions
        self.lifetimes = lifetimes
        self.retrieved = retrieved
        self.origin = origin
        gather()
    }

    /// Every certificate the family holds, transitions included. Kept, and
    /// gathered again only when the family changes: every chain level of
    /// every host is looked up in every family, each cycle.
    public private(set) var allCertificates: [CatalogueCertificate] = []
    /// Their SPKI SHA-256 digests, for `containsKey`.
    private var keys: Set<[UInt8]> = []

    private mutating func gather() {
        allCertificates =
            roots + crossSigns + intermediates.flatMap { [$0.certificate] + $0.servedWith }
            + transitions.flatMap { $0.roots + $0.intermediates.flatMap { [$0.certificate] + $0.servedWith } }
        keys = Set(allCertificates.lazy.map(\.facts.spkiSHA256))
    }

    /// Whether a chain certificate belongs to the family (by key).
    public func contains(_ facts: CertificateFacts) -> Bool { containsKey(facts.spkiSHA256) }

    /// Beyond this age the data is said to be stale, everywhere it is shown.
    public static let staleAfterDays = 180

    /// Whole days between the data's date (CCADB's, else when it was
    /// retrieved) and `now`; nil for data without a date.
    public func dataAge(now: Date) -> Int? {
        (dataDate ?? retrieved).map { Int(now.timeIntervalSince($0) / 86_400) }
    }

    /// Whether the catalogue knows which intermediates the family issues
    /// from; a family known by its roots only cannot say what a rotation does.
    public var knowsPool: Bool { !intermediates.isEmpty || transitions.contains { !$0.intermediates.isEmpty } }

    /// Whether one of the family's certificates has this SPKI SHA-256.
    public func containsKey(_ spkiSHA256: [UInt8]) -> Bool {
        keys.contains(spkiSHA256)
    }
}

/// A hosting provider or certificate service that picks among CA families
/// for its customers' next certificate.
public struct CatalogueProvider: Hashable, Sendable {
    public var name: String
    public var displayName: String
    /// `CatalogueFamily.name`s it issues from.
    public var families: [String]
    /// Intermediates or roots (by SPKI SHA-256) only this provider's
    /// customers get: a chain through one implies the provider.
    public var exclusiveKeys: [[UInt8]]
    public var source: String

    public init(
        name: String, displayName: String, families: [String], exclusiveKeys: [[UInt8]] = [], source: String
    ) {
        self.name = name
        self.displayName = displayName
        self.families = families
        self.exclusiveKeys = exclusiveKeys
        self.source = source
    }
}

/// Every family and provider pinwatch knows, built-in data overlaid by the
/// user's. Pure data: `PinwatchMonitor` loads it, Core reasons over it.
public struct Catalogue: Hashable, Sendable {
    public var families: [CatalogueFamily]
    public var providers: [CatalogueProvider]

    public init(families: [CatalogueFamily] = [], providers: [CatalogueProvider] = []) {
        self.families = families
        self.providers = providers
    }

    public static let empty = Catalogue()

    public func family(named name: String) -> CatalogueFamily? { families.first { $0.name == name } }
    public func provider(named name: String) -> CatalogueProvider? { providers.first { $0.name == name } }

    /// The family a served or verified chain certificate belongs to, by key.
    public func family(containing facts: CertificateFacts) -> CatalogueFamily? {
        families.first { $0.contains(facts) }
    }
}
