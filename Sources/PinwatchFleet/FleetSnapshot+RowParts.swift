import Foundation
import PinwatchCore

extension FleetSnapshot {
    /// A row's labels that tell it from the others: a missing label is "",
    /// as an empty one is.
    struct RowKey: Hashable {
        var host: String
        var port: Int
        var sni: String
        var address: String
        var vantage: String
    }

    /// An exporter, by the labels Prometheus scraped it under.
    struct ExporterKey: Hashable {
        var job: String
        var instance: String
    }

    /// An exporter's `pinwatch_ca_level_info` of one `ca_chain`.
    struct CAChainKey: Hashable {
        var exporter: ExporterKey
        var chain: String
    }

    /// What one row's samples said, gathered until every sample is read.
    struct RowParts {
        /// `pinwatch_chain_info`'s reference to its exporter's CA levels.
        struct Chain {
            var caLevels: CAChainKey
            var caPin: Bool?
            var caPinLevels: Set<Int>
        }

        /// From `pinwatch_host_reason_info`: none, no row.
        var row: FleetHost?
        var alerts: [HostAlert] = []
        var failure: ProbeErrorKind?
        var levels = ByLevel<FleetLevel>()
        var chain: Chain?
        var expiries = ByLevel<Date>()
        var matches = ByLevel<(PinTier, Bool)>()
        var acknowledged = false
        var owner: [String: String]?
        var probes: [SeriesFacts.Probe] = []
        var duration: TimeInterval?
        var survival = SeriesFacts.Survival()
    }

    /// Values by chain level, a row's few: a short list searched in turn,
    /// not a hash table per row. Only `chainLevels` are set, so the list
    /// stays short whatever a server sends.
    struct ByLevel<Value> {
        private(set) var entries: [(level: Int, value: Value)] = []

        subscript(level: Int) -> Value? {
            get { entries.first { $0.level == level }?.value }
            set {
                let at = entries.firstIndex { $0.level == level }
                switch (at, newValue) {
                case (let at?, let value?): entries[at].value = value
                case (let at?, nil): entries.remove(at: at)
                case (nil, let value?): entries.append((level, value))
                case (nil, nil): break
                }
            }
        }
    }
}

extension FleetSnapshot.ExporterKey {
    init(_ labels: VectorLabels) {
        self.init(job: labels["job"] ?? "", instance: labels["instance"] ?? "")
    }
}
