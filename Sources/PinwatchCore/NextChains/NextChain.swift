import Foundation

/// The kinds of chain a host may serve next (issue 26 §2).
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

/// One way a chain a client accepts could be built: the CA certificates a
/// pin may match (an intermediate, its root, and both keys of a cross-sign).
public struct NextChainPath: Hashable, Sendable {
    public var certificates: [NextChainCertificate]

    public init(certificates: [NextChainCertificate]) {
        self.certificates = certificates
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
    /// Nil when the catalogue does not know enough to say.
    public var survives: Bool?
    /// The pins that keep it accepted (empty unless it survives).
    public var carriedBy: [Pin]
    /// When a transition takes effect.
    public var from: Date?
    /// Empty when `survives` is nil.
    public var paths: [NextChainPath]

    public init(
        scenario: NextChainScenario, via: String, survives: Bool?, carriedBy: [Pin] = [], from: Date? = nil,
        paths: [NextChainPath] = []
    ) {
        self.scenario = scenario
        self.via = via
        self.survives = survives
        self.carriedBy = carriedBy
        self.from = from
        self.paths = paths
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
    public var recommended: [RecommendedPin]

    public init(family: String?, provider: String?, chains: [NextChain], pool: [String], recommended: [RecommendedPin]) {
        self.family = family
        self.provider = provider
        self.chains = chains
        self.pool = pool
        self.recommended = recommended
    }

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
