import Foundation
import PinwatchCore

/// One certificate of a host's chain as its series describe it.
package struct FleetLevel: Hashable, Sendable {
    package var level: Int
    package var role: ChainRole
    package var subject: String
    package var spkiSHA256: [UInt8]
    package var notAfter: Date?
    /// `pinwatch_chain_info`'s `leaf_pin`/`ca_pin` (an older exporter's
    /// `pinwatch_chain_level_info` `pin` label, or `pinwatch_pin_match`):
    /// nil where the host has no pin of the tier.
    package var pinMatches: Bool?
    package var tier: PinTier?
}

/// One host as one vantage's `serve` reported it.
package struct FleetHost: Hashable, Sendable {
    package var host: String
    package var port: Int
    package var sni: String?
    package var address: String?
    package var vantage: String?
    package var status: HostStatus
    package var severity: HostSeverity
    package var headline: HostHeadline
    package var matchedTiers: [PinTier]
    package var reason: String
    package var alerts: [HostAlert]
    package var failure: ProbeErrorKind?
    package var levels: [FleetLevel]
    /// The exporter the row came from: Prometheus' `job` and `instance`.
    package var job = ""
    package var instance = ""
    /// `pinwatch_host_acknowledged`.
    package var acknowledged = false
    /// `pinwatch_host_labels`: the host's `labels:` and `runbook:`.
    package var labels: [String: String] = [:]
    package var runbook: String?
    /// `pinwatch_address_status`: each probe's status, for hosts of several.
    package var probes: [SeriesFacts.Probe] = []
    /// `pinwatch_probe_duration_seconds`.
    package var elapsed: TimeInterval?
    /// The instance is gone: this is its last-known row, from then.
    package var staleSince: Date?
    /// Its instance's `pinwatch_last_cycle_timestamp_seconds`: when the
    /// verdict was decided.
    package var lastCycle: Date?
    /// `pinwatch_next_chain_survives`, where it was asked for.
    package var survival = SeriesFacts.Survival()

    /// The host across vantages: what the vantages are compared on.
    package var hostKey: String { Self.hostKey(host: host, port: port, sni: sni, address: address) }

    package static func hostKey(host: String, port: Int, sni: String?, address: String?) -> String {
        "\(host.lowercased()):\(port)/\((sni ?? host).lowercased())@\(address ?? "")"
    }
}

/// One `serve` instance of the answer (its `pinwatch_last_cycle_timestamp_seconds`).
package struct FleetInstance: Hashable, Sendable {
    package var job: String
    package var instance: String
    package var lastCycle: Date
    /// `pinwatch_poll_interval_seconds`.
    package var pollInterval: TimeInterval?
}

/// The fleet's latest state from one query: a row per host and vantage.
package struct FleetSnapshot: Hashable, Sendable {
    package var hosts: [FleetHost]
    /// `hostKey`s whose verdict (headline) differs between vantages.
    package var disagreeing: Set<String>
    /// Every instance that reported a cycle, by `job` then `instance`.
    package var instances: [FleetInstance]
    /// Samples without the labels a host needs (`host`, `port`), with
    /// label values outside pinwatch's vocabulary, or with a value out of
    /// `PrometheusVector.valueRange`: not shown, counted.
    package var skipped: Int
    /// Rows of `/probe` scrapes left out (see `init`).
    package var probeRows = 0

    /// The oldest last cycle of the instances: how old the least fresh part
    /// of the screen is.
    package var oldestCycle: Date? { instances.map(\.lastCycle).min() }

    /// The shortest interval the instances poll at: how often the answer
    /// can change.
    package var pollInterval: TimeInterval? { instances.compactMap(\.pollInterval).min() }

    /// The rows' statuses and severities: those of their reports
    /// (`FleetHost.report` keeps what `serve` decided), counted without
    /// making them.
    package var summary: (StatusSummary, SeveritySummary) {
        var statuses = StatusSummary([])
        var severities = SeveritySummary([HostReport]())
        for host in hosts {
            statuses.count(host.status)
            severities.count(host.severity)
        }
        return (statuses, severities)
    }

    /// The names the query asks for: everything the dashboard shows. The
    /// per-level series (`pinwatch_chain_level_info`, its dates,
    /// `pinwatch_pin_match`) are an older exporter's (or one with
    /// `deprecated_series: true`): read when served.
    package static let families: [MetricFamilyName] = [
        .hostReasonInfo, .hostAlert, .probeError, .chainInfo, .caLevelInfo, .chainLevelInfo, .leafNotAfter, .chainNotAfter,
        .chainLevelNotAfter, .pinMatch, .lastCycle, .pollInterval, .hostAcknowledged, .hostLabels, .addressStatus, .probeDuration,
        .nextChainSurvives,
    ]

    package static var seriesNames: [String] { families.map(\.rawValue) }

    /// Labels of `pinwatch_host_labels` that name the series, not the
    /// host's `labels:`.
    static let identityLabels: Set<String> = ["__name__", "host", "port", "sni", "address", "vantage", "job", "instance", "runbook"]

    /// The levels a chain's series may name: more than any chain has.
    static let chainLevels = 0..<64

    /// At most this many rows: a selector that matches another fleet by
    /// mistake must not take the terminal's memory with it.
    package static let maximumHosts = 50_000

    /// `probeSeries` false leaves out the rows of exporters that report no
    /// cycle: `/probe` scrapes, whose series share the host rules' names
    /// but are one ad-hoc probe, not a watched host.
    package init(_ answer: VectorAnswer, probeSeries: Bool) {
        self.init(answer.samples, probeSeries: probeSeries)
        skipped += answer.skipped
    }

    /// Every row, `/probe` ones too.
    package init(_ answer: VectorAnswer) {
        self.init(answer, probeSeries: true)
    }

    package init(_ samples: [VectorSample], probeSeries: Bool = true) {
        // Each sample's row is found once, by its key, among the rows'
        // parts; the parts of every family live there, not in a table of
        // its own keyed by a string made for each sample.
        var slots: [RowKey: Int] = [:]
        var parts: [RowParts] = []
        var order: [Int] = []
        var skipped = 0
        var cycles: [ExporterKey: FleetInstance] = [:]
        var intervals: [ExporterKey: TimeInterval] = [:]
        // `pinwatch_ca_level_info` by exporter and `ca_chain`, which each
        // row's `pinwatch_chain_info` names.
        var caLevels: [CAChainKey: ByLevel<FleetLevel>] = [:]

        func slot(_ key: RowKey) -> Int {
            if let index = slots[key] { return index }
            parts.append(RowParts())
            slots[key] = parts.count - 1
            return parts.count - 1
        }

        for sample in samples {
            let labels = sample.labels
            let family = MetricFamilyName(rawValue: sample.name)
            switch family {
            case .lastCycle:
                let exporter = ExporterKey(labels)
                let finished = Date(timeIntervalSince1970: sample.value)
                let known = cycles[exporter]?.lastCycle ?? finished
                cycles[exporter] = FleetInstance(job: exporter.job, instance: exporter.instance, lastCycle: min(known, finished))
                continue
            case .pollInterval:
                if sample.value > 0 { intervals[ExporterKey(labels)] = sample.value }
                continue
            case .caLevelInfo:
                guard let chain = labels["ca_chain"], !chain.isEmpty, let level = Self.level(labels), level.level > 0 else {
                    skipped += 1
                    continue
                }
                caLevels[CAChainKey(exporter: ExporterKey(labels), chain: chain), default: ByLevel()][level.level] = level
                continue
            default:
                break
            }
            guard let host = labels["host"], !host.isEmpty, let port = labels["port"].flatMap(Int.init), (1...65_535).contains(port)
            else {
                skipped += 1
                continue
            }
            let key = Self.rowKey(labels, host: host, port: port)
            switch family {
            case .hostReasonInfo:
                let index = slot(key)
                guard parts[index].row == nil, order.count < Self.maximumHosts, var row = Self.row(labels, host: host, port: port) else {
                    skipped += 1
                    continue
                }
                row.job = labels["job"] ?? ""
                row.instance = labels["instance"] ?? ""
                parts[index].row = row
                order.append(index)
            case .hostAlert:
                // A host scraped twice (two jobs) lists each alert once.
                if sample.value == 1, let alert = labels["alert"].flatMap(HostAlert.init(rawValue:)) {
                    let index = slot(key)
                    if !parts[index].alerts.contains(alert) { parts[index].alerts.append(alert) }
                }
            case .probeError:
                if sample.value == 1 { parts[slot(key)].failure = labels["kind"].flatMap(ProbeErrorKind.init(rawValue:)) }
            case .chainInfo:
                var leaf = FleetLevel(level: 0, role: .leaf, subject: labels["subject"] ?? "", spkiSHA256: Self.spki(labels))
                if let matched = Self.pinWord(labels["leaf_pin"]) {
                    leaf.tier = .leaf
                    leaf.pinMatches = matched
                }
                let index = slot(key)
                parts[index].levels[0] = leaf
                let matchedLevels = (labels["ca_pin_levels"] ?? "").split(separator: ",").compactMap { Int($0) }
                parts[index].chain = RowParts.Chain(
                    caLevels: CAChainKey(exporter: ExporterKey(labels), chain: labels["ca_chain"] ?? ""),
                    caPin: Self.pinWord(labels["ca_pin"]), caPinLevels: Set(matchedLevels))
            case .chainLevelInfo:
                guard let found = Self.level(labels) else {
                    skipped += 1
                    continue
                }
                let index = slot(key)
                parts[index].levels[found.level] = found
                // An older exporter's level has no `pin` label: its
                // `pinwatch_pin_match` says it.
                if let tier = labels["tier"].flatMap(PinTier.init(rawValue:)) {
                    switch labels["pin"] {
                    case "match": parts[index].matches[found.level] = (tier, true)
                    case "mismatch": parts[index].matches[found.level] = (tier, false)
                    default: break
                    }
                }
            case .chainLevelNotAfter, .chainNotAfter:
                // Only a level a row can have is kept (`level`'s bound).
                if let level = labels["level"].flatMap(Int.init), Self.chainLevels.contains(level) {
                    parts[slot(key)].expiries[level] = Date(timeIntervalSince1970: sample.value)
                }
            case .leafNotAfter:
                parts[slot(key)].expiries[0] = Date(timeIntervalSince1970: sample.value)
            case .pinMatch:
                if let level = labels["level"].flatMap(Int.init), Self.chainLevels.contains(level),
                    let tier = labels["tier"].flatMap(PinTier.init(rawValue:))
                {
                    parts[slot(key)].matches[level] = (tier, sample.value == 1)
                }
            case .hostAcknowledged:
                if sample.value == 1 { parts[slot(key)].acknowledged = true }
            case .hostLabels:
                parts[slot(key)].owner = labels.filter { !Self.identityLabels.contains($0.key) || $0.key == "runbook" }
            case .addressStatus:
                // Its `address` label is the probe's, not the row's: the
                // row is the one without it (or with its `connect:`).
                var row = key
                row.address = ""
                guard sample.value == 1, let status = labels["status"].flatMap(HostStatus.init(rawValue:)), let address = labels["address"]
                else { continue }
                let index = slot(row)
                guard parts[index].probes.count < 256 else { continue }
                parts[index].probes.append(SeriesFacts.Probe(address: address, keyType: labels["key_type"], status: status))
            case .probeDuration:
                if sample.value >= 0 { parts[slot(key)].duration = sample.value }
            case .nextChainSurvives:
                guard let scenario = labels["scenario"].flatMap(NextChainScenario.init(rawValue:)), sample.value == 0 || sample.value == 1
                else {
                    skipped += 1
                    continue
                }
                parts[slot(key)].survival[scenario] = sample.value == 1
            default:
                skipped += 1
            }
        }

        var probeRows = 0
        // Rows share their equal labels and reasons: most of a fleet's rows
        // say one of a few, and each would hold its own copy.
        var labelSets: Set<[String: String]> = []
        var reasons: Set<String> = []
        var rows: [FleetHost] = order.compactMap { index in
            let part = parts[index]
            guard var row = part.row else { return nil }
            let lastCycle = cycles[ExporterKey(job: row.job, instance: row.instance)]?.lastCycle
            if !probeSeries, lastCycle == nil {
                probeRows += 1
                return nil
            }
            row.alerts = part.alerts
            row.failure = part.failure
            row.acknowledged = part.acknowledged
            let owner = part.owner ?? [:]
            row.runbook = owner["runbook"].flatMap { $0.isEmpty ? nil : $0 }
            row.labels = labelSets.insert(owner.filter { $0.key != "runbook" && !$0.value.isEmpty }).memberAfterInsert
            row.reason = reasons.insert(row.reason).memberAfterInsert
            row.probes = part.probes.sorted { ($0.address, $0.keyType ?? "") < ($1.address, $1.keyType ?? "") }
            row.elapsed = part.duration
            row.survival = part.survival
            row.lastCycle = lastCycle
            var rowLevels = part.levels
            if let chain = part.chain, !chain.caLevels.chain.isEmpty, let shared = caLevels[chain.caLevels] {
                for (number, level) in shared.entries where rowLevels[number] == nil {
                    var level = level
                    if let pinned = chain.caPin {
                        level.tier = .ca
                        level.pinMatches = pinned && chain.caPinLevels.contains(number)
                    }
                    rowLevels[number] = level
                }
            }
            row.levels = rowLevels.entries.sorted { $0.level < $1.level }.map { number, level in
                var level = level
                level.notAfter = part.expiries[number]
                if let (tier, matched) = part.matches[number] {
                    level.tier = tier
                    level.pinMatches = matched
                }
                return level
            }
            return row
        }
        Self.sortInRowOrder(&rows)
        hosts = rows
        disagreeing = Self.disagreeing(hosts)
        instances = cycles.map { exporter, instance in
            var instance = instance
            instance.pollInterval = intervals[exporter]
            return instance
        }
        .sorted { ($0.job, $0.instance) < ($1.job, $1.instance) }
        self.skipped = skipped
        self.probeRows = probeRows
    }

    /// The rows in their order, by host, port, then vantage (as they came
    /// where those are equal). Their keys are sorted, and the rows then
    /// swapped into place: sorting the rows themselves copied a whole row
    /// (every label and level retained and released) at each step.
    package static func sortInRowOrder(_ hosts: inout [FleetHost]) {
        var keys = hosts.indices.map { (host: hosts[$0].host, port: hosts[$0].port, vantage: hosts[$0].vantage ?? "", index: $0) }
        keys.sort { ($0.host, $0.port, $0.vantage, $0.index) < ($1.host, $1.port, $1.vantage, $1.index) }
        // Place `position` takes the row at `keys[position].index`: each
        // cycle of that permutation is walked once, a swap a step.
        var placed = [Bool](repeating: false, count: hosts.count)
        for start in hosts.indices where !placed[start] {
            var position = start
            while true {
                placed[position] = true
                let from = keys[position].index
                if from == start { break }
                hosts.swapAt(position, from)
                position = from
            }
        }
    }

    /// The `hostKey`s of `hosts` whose vantages' verdicts differ.
    static func disagreeing(_ hosts: [FleetHost]) -> Set<String> {
        var headlines: [String: Set<HostHeadline>] = [:]
        for host in hosts where host.vantage != nil { headlines[host.hostKey, default: []].insert(host.headline) }
        return Set(headlines.filter { $0.value.count > 1 }.keys)
    }

    /// A level of `pinwatch_chain_level_info` or `pinwatch_ca_level_info`.
    private static func level(_ labels: VectorLabels) -> FleetLevel? {
        guard let level = labels["level"].flatMap(Int.init), Self.chainLevels.contains(level),
            let role = labels["role"].flatMap(ChainRole.init(rawValue:))
        else { return nil }
        return FleetLevel(level: level, role: role, subject: labels["subject"] ?? "", spkiSHA256: spki(labels))
    }

    private static func spki(_ labels: VectorLabels) -> [UInt8] {
        let spki = labels["spki_sha256"].flatMap { Data(base64Encoded: $0) }.map { [UInt8]($0) } ?? []
        return spki.count == 32 ? spki : []
    }

    /// `match` or `mismatch`; nil for anything else (no pin of the tier).
    private static func pinWord(_ word: String?) -> Bool? {
        switch word {
        case "match": true
        case "mismatch": false
        default: nil
        }
    }

    static func rowKey(_ labels: VectorLabels, host: String, port: Int) -> RowKey {
        RowKey(host: host, port: port, sni: labels["sni"] ?? "", address: labels["address"] ?? "", vantage: labels["vantage"] ?? "")
    }

    /// The same key from the row: its labels as read (empty ones are nil).
    static func rowKey(_ row: FleetHost) -> RowKey {
        RowKey(host: row.host, port: row.port, sni: row.sni ?? "", address: row.address ?? "", vantage: row.vantage ?? "")
    }

    private static func row(_ labels: VectorLabels, host: String, port: Int) -> FleetHost? {
        guard let status = labels["status"].flatMap(HostStatus.init(rawValue:)),
            let severity = labels["severity"].flatMap(HostSeverity.init(rawValue:)),
            let headline = labels["headline"].flatMap(HostHeadline.init(rawValue:))
        else { return nil }
        let tiers = (labels["tiers"] ?? "").split(separator: ",").compactMap { PinTier(rawValue: String($0)) }
        func nonEmpty(_ name: String) -> String? { labels[name].flatMap { $0.isEmpty ? nil : $0 } }
        return FleetHost(
            host: host, port: port, sni: nonEmpty("sni"), address: nonEmpty("address"), vantage: nonEmpty("vantage"), status: status,
            severity: severity, headline: headline, matchedTiers: tiers, reason: labels["reason"] ?? "", alerts: [], failure: nil,
            levels: [])
    }
}
