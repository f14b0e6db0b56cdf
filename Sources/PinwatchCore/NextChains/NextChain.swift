import Foundation

/// The kinds of chain a host may serve next (DESIGN §10).
public enum NextChainScenario: String, Sendable, Hashable, CaseIterable, Codable {
    /// A new leaf key under the intermediate served today.
    case leafRenewal = "leaf_renewal"
    /// A new leaf under another intermediate of the same pool.
    case intermediateRotation = "intermediate_rotation"
    /// A new leaf under the family's announced next hierarchy.
    case rootTransition = "root_transition"
    /// A new leaf from another CA family the host's provider issues from.
    case caSwitch = "ca_switch"

    /// What changes, for people (the detail view).
    public var change: String {
        switch self {
        case .leafRenewal: return "leaf renewal"
        case .intermediateRotation: return "intermediate rotation"
        case .rootTransition: return "root transition"
        case .caSwitch: return "CA switch"
        }
    }
}

/// A CA certificate a next chain would carry (from the catalogue, or the
/// level served today when the catalogue does not know it).
public struct NextChainCertificate: Hashable, Sendable {
    /// `R10`, `ISRG Root X1`: what reasons and views call it.
    public var name: String
    public var facts: CertificateFacts
    public var isRoot: Bool

    public init(name: String, facts: CertificateFacts, isRoot: Bool) {
        self.name = name
        self.facts = facts
        self.isRoot = isRoot
    }

    public func matches(_ pin: Pin) -> Bool { facts.digest(for: pin.kind) == pin.digest }
}

/// The CA part of the path a client builds for a next chain
/// (`ClientPath`): the certificates its pins are checked against.
public struct NextChainPath: Hashable, Sendable {
    public var certificates: [NextChainCertificate]
    /// False when the store holds none of them: refused whatever is pinned.
    public var anchored: Bool

    public init(certificates: [NextChainCertificate], anchored: Bool = true) {
        self.certificates = certificates
        self.anchored = anchored
    }

    public func carrier(among pins: [Pin]) -> Pin? {
        pins.first { pin in certificates.contains { $0.matches(pin) } }
    }
}

/// One scenario's chain (or, for a transition or a CA switch, the set of
/// chains it may land on: it survives only if every one does).
public struct NextChain: Hashable, Sendable {
    public var scenario: NextChainScenario
    /// The intermediate, transition or CA family the next chain goes through.
    public var via: String
    /// Nil when the catalogue does not know enough to say (`reason` says why).
    public var survives: Bool?
    /// Why `survives` is nil, or what a true or false depends on (a root a
    /// store may add, a store that does not trust the chain).
    public var reason: String?
    /// The pins that keep it accepted (empty unless it survives).
    public var carriedBy: [Pin]
    /// When a transition takes effect.
    public var from: Date?
    /// The client paths it was judged on; empty when `survives` is nil.
    public var paths: [NextChainPath]
    /// Paths on a store that adds a root the data knows no store holds yet
    /// (Root YR): a pin they need is recommended, not a break.
    public var forwardPaths: [NextChainPath]

    public init(
        scenario: NextChainScenario, via: String, survives: Bool?, carriedBy: [Pin] = [], from: Date? = nil,
        paths: [NextChainPath] = [], reason: String? = nil, forwardPaths: [NextChainPath] = []
    ) {
        self.scenario = scenario
        self.via = via
        self.survives = survives
        self.carriedBy = carriedBy
        self.from = from
        self.paths = paths
        self.reason = reason
        self.forwardPaths = forwardPaths
    }
}

/// A pin to add so that every known next chain survives.
public struct RecommendedPin: Hashable, Sendable {
    /// `sha256/…` of the certificate's key.
    public var pin: String
    /// The certificate's short name (`ISRG Root X1`).
    public var subject: String
    public var isRoot: Bool

    public init(pin: String, subject: String, isRoot: Bool) {
        self.pin = pin
        self.subject = subject
        self.isRoot = isRoot
    }

    /// `ISRG Root X1 (sha256/C5+l…)`: enough to recognise it in a reason.
    public var shortText: String { "\(subject) (\(String(pin.prefix(11)))…)" }
}

/// Every next chain of one host for one set of pins, and the pins to add.
public struct NextChains: Hashable, Sendable {
    /// The catalogue family of the chain served today (display name); nil
    /// when the catalogue does not know its CA.
    public var family: String?
    /// The provider declared or inferred for the host.
    public var provider: String?
    public var chains: [NextChain]
    /// The pool's intermediates (same key type, not retired), served one included.
    public var pool: [String]
    /// Empty for a chain no client trusts today (`untrusted`).
    public var recommended: [RecommendedPin]
    /// Today's chain does not verify: pins cannot help until trust is fixed.
    public var untrusted: Bool

    public init(
        family: String?, provider: String?, chains: [NextChain], pool: [String], recommended: [RecommendedPin],
        untrusted: Bool = false
    ) {
        self.family = family
        self.provider = provider
        self.chains = chains
        self.pool = pool
        self.recommended = recommended
        self.untrusted = untrusted
    }

    /// What stands in for recommended pins on an untrusted chain.
    public static let fixTrustFirst = "none: the chain is not trusted; fix the trust first"

    public func chains(_ scenario: NextChainScenario) -> [NextChain] { chains.filter { $0.scenario == scenario } }

    /// False when one of the scenario's chains breaks, nil when one cannot
    /// be judged; a scenario without chains has nothing to break when the
    /// catalogue knows the family (or, for a CA switch, the provider).
    public func survives(_ scenario: NextChainScenario) -> Bool? {
        let ofScenario = chains(scenario)
        if ofScenario.contains(where: { $0.survives == false }) { return false }
        if ofScenario.contains(where: { $0.survives == nil }) { return nil }
        guard ofScenario.isEmpty else { return true }
        switch scenario {
        case .leafRenewal: return true
        case .intermediateRotation, .rootTransition: return family == nil ? nil : true
        case .caSwitch: return provider == nil ? nil : true
        }
    }
}
