import Foundation

/// What a report rebuilt from another instance's series carries beside its
/// verdict (`watch --prometheus`): views show these, and say "not
/// exported" where the series say nothing, rather than fill the gaps with
/// defaults that read as facts.
public struct SeriesFacts: Hashable, Sendable {
    /// One probe of a host with `addresses: all` or `key_types:`
    /// (`pinwatch_address_status`).
    public struct Probe: Hashable, Sendable {
        public var address: String
        public var keyType: String?
        public var status: HostStatus

        public init(address: String, keyType: String?, status: HostStatus) {
            self.address = address
            self.keyType = keyType
            self.status = status
        }
    }

    /// The words for a fact no series carries.
    public static let notExported = "not exported"

    /// The `serve` instance (Prometheus' `instance` label) the row came from.
    public var instance: String?
    /// Chain levels with a pin result (`pinwatch_chain_level_info`'s `pin`
    /// label, or an older exporter's `pinwatch_pin_match`): the instance
    /// has pins of the tier that applies there (matched or not).
    public var pinnedLevels: Set<Int> = []
    /// Chain levels whose expiry a series gives: the leaf's, the chain's
    /// earliest (`pinwatch_chain_not_after_timestamp_seconds`), or each
    /// level's from an exporter that serves
    /// `pinwatch_chain_level_not_after_timestamp_seconds`.
    public var datedLevels: Set<Int> = []
    public var probes: [Probe] = []
    /// `pinwatch_probe_duration_seconds`.
    public var elapsed: TimeInterval?
    /// Set while the instance is gone from Prometheus' answer: the row is
    /// its last-known state, from this moment.
    public var staleSince: Date?
    /// Whether the pins survive each next chain, as the instance judged it
    /// (`pinwatch_next_chain_survives`); the chains themselves are not exported.
    public var survival = Survival()

    /// Each scenario's survival in two bytes, not a dictionary per row.
    public struct Survival: Hashable, Sendable {
        private var known: UInt8 = 0
        private var survives: UInt8 = 0

        public init() {}

        public subscript(scenario: NextChainScenario) -> Bool? {
            get { known & Self.bit(scenario) == 0 ? nil : survives & Self.bit(scenario) != 0 }
            set {
                let bit = Self.bit(scenario)
                known = newValue == nil ? known & ~bit : known | bit
                survives = newValue == true ? survives | bit : survives & ~bit
            }
        }

        public var isEmpty: Bool { known == 0 }

        private static func bit(_ scenario: NextChainScenario) -> UInt8 {
            switch scenario {
            case .leafRenewal: 1
            case .intermediateRotation: 2
            case .rootTransition: 4
            case .caSwitch: 8
            }
        }
    }

    public init(instance: String? = nil) {
        self.instance = instance
    }
}
