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
        var rows: [String: FleetHost] = [:]
        var order: [String] = []
        var skipped = 0
        var cycles: [String: FleetInstance] = [:]
        var intervals: [String: TimeInterval] = [:]
        var alerts: [String: [HostAlert]] = [:]
        var failures: [String: ProbeErrorKind] = [:]
        var levels: [String: [Int: FleetLevel]] = [:]
        // `pinwatch_ca_level_info` by exporter and `ca_chain`, and each
        // row's reference to it from `pinwatch_chain_info`.
        var caLevels: [String: [Int: FleetLevel]] = [:]
        var chains: [String: (exporter: String, caChain: String, caPin: Bool?, caPinLevels: Set<Int>)] = [:]
        var expiries: [String: [Int: Date]] = [:]
        var matches: [String: [Int: (PinTier, Bool)]] = [:]
        var acknowledged: Set<String> = []
        var owners: [String: [String: String]] = [:]
        var probes: [String: [SeriesFacts.Probe]] = [:]
        var durations: [String: TimeInterval] = [:]
        var survival: [String: SeriesFacts.Survival] = [:]

        for sample in samples {
            let job = sample.labels["job"] ?? ""
            let instance = sample.labels["instance"] ?? ""
            let exporter = "\(job)\u{0}\(instance)"
            let family = MetricFamilyName(rawValue: sample.name)
            switch family {
            case .lastCycle:
                let finished = Date(timeIntervalSince1970: sample.value)
                let known = cycles[exporter]?.lastCycle ?? finished
                cycles[exporter] = FleetInstance(job: job, instance: instance, lastCycle: min(known, finished))
                continue
            case .pollInterval:
                if sample.value > 0 { intervals[exporter] = sample.value }
                continue
            case .caLevelInfo:
                guard let chain = sample.labels["ca_chain"], !chain.isEmpty, let level = Self.level(sample.labels), level.level > 0
                else {
                    skipped += 1
                    continue
                }
                caLevels["\(exporter)\u{0}\(chain)", default: [:]][level.level] = level
                continue
            default:
                break
            }
            guard let host = sample.labels["host"], !host.isEmpty, let port = sample.labels["port"].flatMap(Int.init),
                (1...65_535).contains(port)
            else {
                skipped += 1
                continue
            }
            let key = Self.rowKey(sample.labels, host: host, port: port)
            switch family {
            case .hostReasonInfo:
                guard rows[key] == nil, rows.count < Self.maximumHosts, var row = Self.row(sample.labels, host: host, port: port) else {
                    skipped += 1
                    continue
                }
                row.job = job
                row.instance = instance
                rows[key] = row
                order.append(key)
            case .hostAlert:
                // A host scraped twice (two jobs) lists each alert once.
                if sample.value == 1, let alert = sample.labels["alert"].flatMap(HostAlert.init(rawValue:)),
                    !(alerts[key] ?? []).contains(alert)
                {
                    alerts[key, default: []].append(alert)
                }
            case .probeError:
                if sample.value == 1 { failures[key] = sample.labels["kind"].flatMap(ProbeErrorKind.init(rawValue:)) }
            case .chainInfo:
                var leaf = FleetLevel(level: 0, role: .leaf, subject: sample.labels["subject"] ?? "", spkiSHA256: Self.spki(sample.labels))
                if let matched = Self.pinWord(sample.labels["leaf_pin"]) {
                    leaf.tier = .leaf
                    leaf.pinMatches = matched
                }
                levels[key, default: [:]][0] = leaf
                let matchedLevels = (sample.labels["ca_pin_levels"] ?? "").split(separator: ",").compactMap { Int($0) }
                chains[key] = (exporter, sample.labels["ca_chain"] ?? "", Self.pinWord(sample.labels["ca_pin"]), Set(matchedLevels))
            case .chainLevelInfo:
                guard let found = Self.level(sample.labels) else {
                    skipped += 1
                    continue
                }
                let level = found.level
                levels[key, default: [:]][level] = found
                // An older exporter's level has no `pin` label: its
                // `pinwatch_pin_match` says it.
                if let tier = sample.labels["tier"].flatMap(PinTier.init(rawValue:)) {
                    switch sample.labels["pin"] {
                    case "match": matches[key, default: [:]][level] = (tier, true)
                    case "mismatch": matches[key, default: [:]][level] = (tier, false)
                    default: break
                    }
                }
            case .chainLevelNotAfter, .chainNotAfter:
                if let level = sample.labels["level"].flatMap(Int.init) {
                    expiries[key, default: [:]][level] = Date(timeIntervalSince1970: sample.value)
                }
            case .leafNotAfter:
                expiries[key, default: [:]][0] = Date(timeIntervalSince1970: sample.value)
            case .pinMatch:
                if let level = sample.labels["level"].flatMap(Int.init), let tier = sample.labels["tier"].flatMap(PinTier.init(rawValue:)) {
                    matches[key, default: [:]][level] = (tier, sample.value == 1)
                }
            case .hostAcknowledged:
                if sample.value == 1 { acknowledged.insert(key) }
            case .hostLabels:
                owners[key] = sample.labels.filter { !Self.identityLabels.contains($0.key) || $0.key == "runbook" }
            case .addressStatus:
                // Its `address` label is the probe's, not the row's: the
                // row is the one without it (or with its `connect:`).
                let row = Self.rowKey(sample.labels.filter { $0.key != "address" }, host: host, port: port)
                guard sample.value == 1, let status = sample.labels["status"].flatMap(HostStatus.init(rawValue:)),
                    let address = sample.labels["address"], (probes[row]?.count ?? 0) < 256
                else { continue }
                probes[row, default: []].append(SeriesFacts.Probe(address: address, keyType: sample.labels["key_type"], status: status))
            case .probeDuration:
                if sample.value >= 0 { durations[key] = sample.value }
            case .nextChainSurvives:
                guard let scenario = sample.labels["scenario"].flatMap(NextChainScenario.init(rawValue:)),
                    sample.value == 0 || sample.value == 1
                else {
                    skipped += 1
                    continue
                }
                survival[key, default: SeriesFacts.Survival()][scenario] = sample.value == 1
            default:
                skipped += 1
            }
        }

        var probeRows = 0
        // Rows share their equal labels and reasons: most of a fleet's rows
        // say one of a few, and each would hold its own copy.
        var labelSets: Set<[String: String]> = []
        var reasons: Set<String> = []
        hosts = order.compactMap { key in
            guard var row = rows[key] else { return nil }
            if !probeSeries, cycles["\(row.job)\u{0}\(row.instance)"] == nil {
                probeRows += 1
                return nil
            }
            row.alerts = alerts[key] ?? []
            row.failure = failures[key]
            row.acknowledged = acknowledged.contains(key)
            let owner = owners[key] ?? [:]
            row.runbook = owner["runbook"].flatMap { $0.isEmpty ? nil : $0 }
            row.labels = labelSets.insert(owner.filter { $0.key != "runbook" && !$0.value.isEmpty }).memberAfterInsert
            row.reason = reasons.insert(row.reason).memberAfterInsert
            row.probes = (probes[key] ?? []).sorted { ($0.address, $0.keyType ?? "") < ($1.address, $1.keyType ?? "") }
            row.elapsed = durations[key]
            row.survival = survival[key] ?? SeriesFacts.Survival()
            row.lastCycle = cycles["\(row.job)\u{0}\(row.instance)"]?.lastCycle
            var rowLevels = levels[key] ?? [:]
            if let chain = chains[key], !chain.caChain.isEmpty {
                for (number, level) in caLevels["\(chain.exporter)\u{0}\(chain.caChain)"] ?? [:] where rowLevels[number] == nil {
                    var level = level
                    if let pinned = chain.caPin {
                        level.tier = .ca
                        level.pinMatches = pinned && chain.caPinLevels.contains(number)
                    }
                    rowLevels[number] = level
                }
            }
            row.levels = rowLevels.values.sorted { $0.level < $1.level }.map { level in
                var level = level
                level.notAfter = expiries[key]?[level.level]
                if let (tier, matched) = matches[key]?[level.level] {
                    level.tier = tier
                    level.pinMatches = matched
                }
                return level
            }
            return row
        }
        .sorted(by: Self.inRowOrder)
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

    /// The rows' order: by host, port, then vantage.
    static func inRowOrder(_ one: FleetHost, _ other: FleetHost) -> Bool {
        (one.host, one.port, one.vantage ?? "") < (other.host, other.port, other.vantage ?? "")
    }

    /// The `hostKey`s of `hosts` whose vantages' verdicts differ.
    static func disagreeing(_ hosts: [FleetHost]) -> Set<String> {
        var headlines: [String: Set<HostHeadline>] = [:]
        for host in hosts where host.vantage != nil { headlines[host.hostKey, default: []].insert(host.headline) }
        return Set(headlines.filter { $0.value.count > 1 }.keys)
    }

    /// A level of `pinwatch_chain_level_info` or `pinwatch_ca_level_info`.
    private static func level(_ labels: [String: String]) -> FleetLevel? {
        guard let level = labels["level"].flatMap(Int.init), (0..<64).contains(level),
            let role = labels["role"].flatMap(ChainRole.init(rawValue:))
        else { return nil }
        return FleetLevel(level: level, role: role, subject: labels["subject"] ?? "", spkiSHA256: spki(labels))
    }

    private static func spki(_ labels: [String: String]) -> [UInt8] {
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

    static func rowKey(_ labels: [String: String], host: String, port: Int) -> String {
        rowKey(host: host, port: port, sni: labels["sni"], address: labels["address"], vantage: labels["vantage"])
    }

    /// The same key from the row: its labels as read (empty ones are nil).
    static func rowKey(_ row: FleetHost) -> String {
        rowKey(host: row.host, port: row.port, sni: row.sni, address: row.address, vantage: row.vantage)
    }

    private static func rowKey(host: String, port: Int, sni: String?, address: String?, vantage: String?) -> String {
        "\(host)\u{0}\(port)\u{0}\(sni ?? "")\u{0}\(address ?? "")\u{0}\(vantage ?? "")"
    }

    private static func row(_ labels: [String: String], host: String, port: Int) -> FleetHost? {
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
