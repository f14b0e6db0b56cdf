import Foundation

/// The Prometheus text exposition format (version 0.0.4) of one completed
/// cycle: what `snapshot --format prometheus` prints for node_exporter's
/// textfile collector and what `serve` answers on `/metrics`.
///
/// Written by hand rather than through a metrics library: the values are
/// a snapshot of reports, not counters updated in place, and the format is
/// a few lines of text that `promtool check metrics` validates in the
/// tests. Names follow the Prometheus conventions: `pinwatch_` prefix, base
/// units (`_seconds`), `_info` for labels-as-data, one series per status
/// value. Label values are sanitised for terminals, then escaped.
public enum PrometheusExposition {
    /// What a cycle adds to its reports.
    public struct Cycle: Sendable {
        public var finishedAt: Date
        public var duration: TimeInterval
        public var completedCycles: Int
        /// The configured `interval`: what a staleness rule compares the
        /// last cycle's age with, so it follows the configuration.
        public var interval: TimeInterval?
        /// Cycles since start that failed for want of a local resource.
        public var failures: [LocalResourceShortage: Int]

        public init(
            finishedAt: Date, duration: TimeInterval, completedCycles: Int, interval: TimeInterval? = nil,
            failures: [LocalResourceShortage: Int] = [:]
        ) {
            self.finishedAt = finishedAt
            self.duration = duration
            self.completedCycles = completedCycles
            self.interval = interval
            self.failures = failures
        }
    }

    /// `/probe`'s `pinwatch_probe_success`, as blackbox_exporter users read
    /// it: 1 only when a chain was obtained and the host is not critical
    /// (blocked, intercepted, expired or within `critical_days`); 0 when the
    /// probe failed or pinned clients fail now or within days.
    public static func probeSuccess(_ report: HostReport) -> Bool {
        report.result.failure == nil && report.severity != .critical && report.severity != .unknown
    }

    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// One rendering with a fresh renderer (`snapshot`, `/probe`); `serve`
    /// keeps a `PrometheusRenderer` for its cycles.
    public static func render(_ reports: [HostReport], cycle: Cycle?, version: String, vantage: String? = nil) -> String {
        String(decoding: PrometheusRenderer().render(reports, cycle: cycle, version: version, vantage: vantage), as: UTF8.self)
    }
}

/// Renders exposition text cycle after cycle, keeping its per-family
/// buffers: `serve` renders 10,000 hosts (17 MB) once per cycle, and fresh
/// buffers every time cost as much in page faults as the writing itself.
/// One renderer per thread (it is not shared).
public final class PrometheusRenderer {
    private var status = ExpositionBuffer(capacity: 0)
    private var severity = ExpositionBuffer(capacity: 0)
    private var reason = ExpositionBuffer(capacity: 0)
    private var alerts = ExpositionBuffer(capacity: 0)
    private var notAfter = ExpositionBuffer(capacity: 0)
    private var deprecatedNotAfter = ExpositionBuffer(capacity: 0)
    private var levelNotAfter = ExpositionBuffer(capacity: 0)
    private var levelNotBefore = ExpositionBuffer(capacity: 0)
    private var levelInfo = ExpositionBuffer(capacity: 0)
    private var pinMatch = ExpositionBuffer(capacity: 0)
    private var nextChains = ExpositionBuffer(capacity: 0)
    private var duration = ExpositionBuffer(capacity: 0)
    private var errors = ExpositionBuffer(capacity: 0)
    private var ownerLabels = ExpositionBuffer(capacity: 0)
    private var addressStatus = ExpositionBuffer(capacity: 0)
    private var acknowledged = ExpositionBuffer(capacity: 0)

    public init() {}

    /// `vantage` (`vantage:`) labels every host series and the build info,
    /// so instances in several networks can watch the same hosts.
    public func render(_ reports: [HostReport], cycle: PrometheusExposition.Cycle?, version: String, vantage: String? = nil) -> [UInt8] {
        typealias Exposition = PrometheusExposition
        // One pass over the reports, one buffer per family: the format wants
        // each family's samples together, and touching each report once
        // keeps the copying (and reference counting) to one per host.
        let buffers = [
            \PrometheusRenderer.status, \.severity, \.reason, \.alerts, \.notAfter, \.deprecatedNotAfter, \.levelNotAfter, \.levelNotBefore,
            \.levelInfo,
            \.pinMatch, \.nextChains, \.duration, \.errors,
            \.ownerLabels,
            \.addressStatus,
            \.acknowledged,
        ]
        for buffer in buffers {
            self[keyPath: buffer].bytes.removeAll(keepingCapacity: true)
        }
        var errorCounts: [ProbeErrorKind: Int] = [:]

        // `,status="ok"} ` and the like, made once: most of the text is these.
        let statuses = HostStatus.allCases
        let statusTails = statuses.map { Array(",status=\"\($0.rawValue)\"} ".utf8) }
        let severities = HostSeverity.worstFirst
        let severityTails = severities.map { Array(",severity=\"\($0.rawValue)\"} ".utf8) }
        let ownerLabelNames = Exposition.ownerLabelNames(reports)

        for report in reports {
            let labels = Array(Exposition.hostLabels(report, vantage: vantage).utf8)
            for (position, value) in statuses.enumerated() {
                status.append("pinwatch_host_status{")
                status.append(labels)
                status.append(statusTails[position])
                status.append(report.status == value ? "1\n" : "0\n")
            }
            for (position, value) in severities.enumerated() {
                severity.append("pinwatch_host_severity{")
                severity.append(labels)
                severity.append(severityTails[position])
                severity.append(report.severity == value ? "1\n" : "0\n")
            }
            // Everything a remote dashboard's row shows, in one series per
            // host: the labels change together when the verdict does.
            reason.append("pinwatch_host_reason_info{")
            reason.append(labels)
            reason.append(",status=\"")
            reason.append(string: report.status.rawValue)
            reason.append("\",severity=\"")
            reason.append(string: report.severity.rawValue)
            reason.append("\",headline=\"")
            reason.append(string: report.headline.rawValue)
            reason.append("\",tiers=\"")
            reason.append(string: report.matchedTiers.map(\.rawValue).joined(separator: ","))
            reason.append("\",reason=\"")
            reason.append(string: Exposition.escape(ReasonLabel.text(report)))
            reason.append("\"} 1\n")
            ownerLabels.append("pinwatch_host_labels{")
            ownerLabels.append(labels)
            ownerLabels.append(string: Exposition.ownerLabels(report.config, names: ownerLabelNames))
            ownerLabels.append("} 1\n")
            for alert in report.alerts {
                alerts.sample("pinwatch_host_alert", labels, "alert", alert.rawValue, 1)
            }
            let pins = report.config.pins
            // A forged chain's dates are the proxy's, not the server's.
            let serverChain = !report.proxy.intercepted
            for level in report.levels {
                let facts = level.certificate.facts
                let expiry = facts.notAfter.timeIntervalSince1970
                if serverChain, level.level == 0 {
                    notAfter.sample("pinwatch_leaf_not_after_timestamp_seconds", labels, nil, nil, expiry)
                    deprecatedNotAfter.sample("pinwatch_leaf_not_after_seconds", labels, nil, nil, expiry)
                }
                if serverChain {
                    levelNotAfter.levelSample("pinwatch_chain_level_not_after_timestamp_seconds", labels, level, expiry)
                    levelNotBefore.levelSample(
                        "pinwatch_chain_level_not_before_timestamp_seconds", labels, level, facts.notBefore.timeIntervalSince1970)
                }
                levelInfo.append("pinwatch_chain_level_info{")
                levelInfo.append(labels)
                levelInfo.append(",level=\"")
                levelInfo.append(integer: Int64(level.level))
                levelInfo.append("\",role=\"")
                levelInfo.append(string: level.role.rawValue)
                levelInfo.append("\",spki_sha256=\"")
                levelInfo.append(base64: facts.spkiSHA256)
                levelInfo.append("\",subject=\"")
                levelInfo.append(string: Exposition.escape(facts.subject))
                levelInfo.append("\"} 1\n")

                let tier: PinTier = level.role == .leaf ? .leaf : .ca
                guard !pins.pins(in: tier).isEmpty else { continue }
                pinMatch.append("pinwatch_pin_match{")
                pinMatch.append(labels)
                pinMatch.append(",level=\"")
                pinMatch.append(integer: Int64(level.level))
                pinMatch.append("\",tier=\"")
                pinMatch.append(string: tier.rawValue)
                pinMatch.append(level.matches.contains { $0.tier == tier } ? "\"} 1\n" : "\"} 0\n")
            }
            if let judged = report.nextChains {
                // Absent, not 0, where the catalogue cannot judge: an
                // unknown is not a break to alert on.
                for scenario in NextChainScenario.allCases {
                    guard let survives = judged.survives(scenario) else { continue }
                    nextChains.sample("pinwatch_next_chain_survives", labels, "scenario", scenario.rawValue, survives ? 1 : 0)
                }
            }
            duration.sample("pinwatch_probe_duration_seconds", labels, nil, nil, max(0, report.result.elapsed))
            if let failure = report.result.failure {
                errorCounts[failure.kind, default: 0] += 1
                errors.sample("pinwatch_probe_error", labels, "kind", failure.kind.rawValue, 1)
            }
            if report.config.probesEveryAddress {
                Exposition.appendAddressStatus(report, labels: labels, statusTails: statusTails, to: &addressStatus)
            }
            if report.acknowledgement != nil {
                acknowledged.sample("pinwatch_host_acknowledged", labels, nil, nil, 1)
            }
        }

        var out = ExpositionBuffer(
            capacity: 4_096 + status.bytes.count + severity.bytes.count + reason.bytes.count + alerts.bytes.count + notAfter.bytes.count
                + deprecatedNotAfter.bytes.count + levelNotAfter.bytes.count + levelNotBefore.bytes.count + levelInfo.bytes.count
                + pinMatch.bytes.count
                + nextChains.bytes.count + duration.bytes.count + errors.bytes.count + ownerLabels.bytes.count
                + addressStatus.bytes.count + acknowledged.bytes.count)
        out.family("pinwatch_host_status", "gauge", "Status of each host: 1 for the status it has now, 0 for the others.")
        out.append(status.bytes)
        out.family(
            "pinwatch_host_severity", "gauge", "Severity of each host (critical, unknown, warning, ok): 1 for its own, 0 for the others.")
        out.append(severity.bytes)
        out.family(
            "pinwatch_host_reason_info", "gauge",
            "Each host's verdict as labels: status, severity, headline, matched pin tiers and the sentence alert annotations quote.")
        out.append(reason.bytes)
        out.family(
            "pinwatch_host_labels", "gauge",
            "Each host's labels: and runbook: as labels, for joins (group_left); every series has every label name, empty where a host has none."
        )
        out.append(ownerLabels.bytes)
        out.family("pinwatch_host_alert", "gauge", "Alerts a host has now (only present alerts are exported).")
        out.append(alerts.bytes)
        out.family(
            "pinwatch_leaf_not_after_timestamp_seconds", "gauge",
            "Expiry of each host's leaf certificate, Unix time (absent without a chain or when a proxy forged it).")
        out.append(notAfter.bytes)
        out.family(
            "pinwatch_leaf_not_after_seconds", "gauge",
            "Deprecated, removed in the next release: pinwatch_leaf_not_after_timestamp_seconds under its old name.")
        out.append(deprecatedNotAfter.bytes)
        out.family(
            "pinwatch_chain_level_not_after_timestamp_seconds", "gauge",
            "Expiry of each certificate of each host's chain, Unix time: the earliest one is when pinned clients fail (absent when a proxy forged the chain)."
        )
        out.append(levelNotAfter.bytes)
        out.family(
            "pinwatch_chain_level_not_before_timestamp_seconds", "gauge",
            "Start of validity of each certificate of each host's chain, Unix time: with its not_after, the lifetime and the share used (absent when a proxy forged the chain)."
        )
        out.append(levelNotBefore.bytes)
        out.family("pinwatch_chain_level_info", "gauge", "One series per certificate of each host's chain, with its role and SPKI pin.")
        out.append(levelInfo.bytes)
        out.family(
            "pinwatch_pin_match", "gauge",
            "Whether a configured pin of the tier that applies matches the chain level (leaf tier at level 0, CA tier above; only levels whose tier has pins)."
        )
        out.append(pinMatch.bytes)
        out.family(
            "pinwatch_next_chain_survives", "gauge",
            "Whether the configured pins still match the chains a renewal may land on, per scenario (absent when the catalogue cannot tell)."
        )
        out.append(nextChains.bytes)
        out.family("pinwatch_probe_duration_seconds", "gauge", "How long the last probe of each host took.")
        out.append(duration.bytes)
        out.family("pinwatch_probe_error", "gauge", "Hosts whose last probe failed, by kind of failure (only failed hosts are exported).")
        out.append(errors.bytes)
        out.family(
            "pinwatch_address_status", "gauge",
            "Status of each address of a host with addresses: all (and of each key type with key_types:): 1 for its status, 0 for the others; only those hosts are exported."
        )
        out.append(addressStatus.bytes)
        out.family(
            "pinwatch_host_acknowledged", "gauge",
            "1 while a host's problem is acknowledged (silence: or the dashboard's a) and unchanged (only acknowledged hosts are exported)."
        )
        out.append(acknowledged.bytes)

        let statusCounts = StatusSummary(reports)
        let severityCounts = SeveritySummary(reports)
        out.family("pinwatch_hosts", "gauge", "Hosts by status.")
        for value in StatusSummary.reportingOrder {
            out.sample("pinwatch_hosts", [], "status", value.rawValue, Double(statusCounts.count(of: value)))
        }
        out.family("pinwatch_hosts_by_severity", "gauge", "Hosts by severity.")
        for value in HostSeverity.worstFirst {
            out.sample("pinwatch_hosts_by_severity", [], "severity", value.rawValue, Double(severityCounts.count(of: value)))
        }
        // Named apart from the per-host `pinwatch_probe_error`, which the
        // old name differed from by one letter.
        out.family("pinwatch_cycle_probe_errors", "gauge", "Failed probes of the last cycle, by kind (every kind, 0 included).")
        for kind in ProbeErrorKind.allCases {
            out.sample("pinwatch_cycle_probe_errors", [], "kind", kind.rawValue, Double(errorCounts[kind] ?? 0))
        }
        out.family(
            "pinwatch_probe_errors", "gauge", "Deprecated, removed in the next release: pinwatch_cycle_probe_errors under its old name.")
        for kind in ProbeErrorKind.allCases {
            out.sample("pinwatch_probe_errors", [], "kind", kind.rawValue, Double(errorCounts[kind] ?? 0))
        }
        if let cycle {
            out.family("pinwatch_cycle_duration_seconds", "gauge", "How long the last completed cycle took (absent from /probe).")
            out.sample("pinwatch_cycle_duration_seconds", nil, nil, nil, cycle.duration)
            out.family("pinwatch_last_cycle_timestamp_seconds", "gauge", "When the last cycle completed, Unix time (absent from /probe).")
            out.sample("pinwatch_last_cycle_timestamp_seconds", nil, nil, nil, cycle.finishedAt.timeIntervalSince1970)
            out.family("pinwatch_cycles_total", "counter", "Cycles completed since start (absent from /probe).")
            out.sample("pinwatch_cycles_total", nil, nil, nil, Double(cycle.completedCycles))
            if let interval = cycle.interval {
                out.family("pinwatch_poll_interval_seconds", "gauge", "The configured interval between cycles (serve only).")
                out.sample("pinwatch_poll_interval_seconds", nil, nil, nil, interval)
            }
            out.family(
                "pinwatch_cycle_failures_total", "counter",
                "Cycles that failed because pinwatch itself ran out of a resource; their unprobed hosts kept their verdicts.")
            for shortage in LocalResourceShortage.allCases {
                out.sample("pinwatch_cycle_failures_total", [], "reason", shortage.rawValue, Double(cycle.failures[shortage] ?? 0))
            }
        }
        out.family("pinwatch_build_info", "gauge", "The running pinwatch's version.")
        if let vantage {
            out.sample(
                "pinwatch_build_info", Array("vantage=\"\(Exposition.escape(vantage))\"".utf8), "version", Exposition.escape(version), 1)
        } else {
            out.sample("pinwatch_build_info", [], "version", Exposition.escape(version), 1)
        }
        return out.bytes
    }
}

extension PrometheusExposition {
    /// `host="…",port="…"`, `sni="…"` when it differs from the host, and
    /// `address="…"` when `connect:` is set (an absent label reads as "" in
    /// PromQL, and most hosts have neither): two backends behind one name
    /// would otherwise be one series, and Prometheus would drop one of them.
    /// `vantage="…"` last, when the instance has one. Computed once per
    /// host and reused by every family.
    static func hostLabels(_ report: HostReport, vantage: String? = nil) -> String {
        let config = report.config
        var labels = "host=\"\(escape(config.host))\",port=\"\(config.port)\""
        if config.serverName != config.host { labels += ",sni=\"\(escape(config.serverName))\"" }
        if let address = config.connectAddress { labels += ",address=\"\(escape(address))\"" }
        if let vantage { labels += ",vantage=\"\(escape(vantage))\"" }
        return labels
    }

    /// Every `labels:` name of any host, sorted: each `pinwatch_host_labels`
    /// series carries them all (empty where its host has none, which
    /// PromQL reads as absent) and `runbook`, so the family has one label
    /// set and a join may name any of them.
    static func ownerLabelNames(_ reports: [HostReport]) -> [String] {
        var names: Set<String> = []
        for report in reports { names.formUnion(report.config.labels.keys) }
        return names.sorted()
    }

    /// `,team="…",env="…",runbook="…"` for one host, in `names` order.
    static func ownerLabels(_ config: HostConfig, names: [String]) -> String {
        var text = ""
        for name in names {
            text += ",\(name)=\"\(escape(config.labels[name] ?? ""))\""
        }
        return text + ",runbook=\"\(escape(config.runbook ?? ""))\""
    }

    /// Label values: backslash, double quote and newline escaped, as the
    /// format requires; certificate text made safe for terminals first.
    static func escape(_ text: String) -> String {
        let clean = TerminalText.sanitize(text)
        guard clean.utf8.contains(where: { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\"") || $0 == 0x0A }) else { return clean }
        var out = ""
        for character in clean {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }
}

/// Bytes of exposition text, appended without intermediate strings.
private struct ExpositionBuffer {
    var bytes: [UInt8] = []

    init(capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func append(_ raw: [UInt8]) {
        bytes.append(contentsOf: raw)
    }

    mutating func append(string: String) {
        var text = string
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    private static let base64Alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Standard base64 with padding, written in place (a pin is 32 bytes).
    mutating func append(base64 data: [UInt8]) {
        let alphabet = Self.base64Alphabet
        var index = 0
        while index + 3 <= data.count {
            let chunk = UInt32(data[index]) << 16 | UInt32(data[index + 1]) << 8 | UInt32(data[index + 2])
            bytes.append(alphabet[Int(chunk >> 18 & 63)])
            bytes.append(alphabet[Int(chunk >> 12 & 63)])
            bytes.append(alphabet[Int(chunk >> 6 & 63)])
            bytes.append(alphabet[Int(chunk & 63)])
            index += 3
        }
        let rest = data.count - index
        if rest > 0 {
            let chunk = UInt32(data[index]) << 16 | (rest == 2 ? UInt32(data[index + 1]) << 8 : 0)
            bytes.append(alphabet[Int(chunk >> 18 & 63)])
            bytes.append(alphabet[Int(chunk >> 12 & 63)])
            bytes.append(rest == 2 ? alphabet[Int(chunk >> 6 & 63)] : UInt8(ascii: "="))
            bytes.append(UInt8(ascii: "="))
        }
    }

    mutating func append(integer: Int64) {
        if integer < 0 {
            bytes.append(UInt8(ascii: "-"))
            append(integer: -integer)
            return
        }
        if integer >= 10 { append(integer: integer / 10) }
        bytes.append(UInt8(ascii: "0") + UInt8(integer % 10))
    }

    /// Whole numbers as integers, others with three decimals.
    mutating func append(number value: Double) {
        let milli = (value * 1000).rounded()
        guard abs(milli) < 9e15 else {
            append(string: String(value))
            return
        }
        let scaled = Int64(milli)
        if scaled % 1000 == 0 {
            append(integer: scaled / 1000)
            return
        }
        if scaled < 0 { bytes.append(UInt8(ascii: "-")) }
        let magnitude = abs(scaled)
        append(integer: magnitude / 1000)
        bytes.append(UInt8(ascii: "."))
        let fraction = magnitude % 1000
        bytes.append(UInt8(ascii: "0") + UInt8(fraction / 100))
        bytes.append(UInt8(ascii: "0") + UInt8(fraction / 10 % 10))
        bytes.append(UInt8(ascii: "0") + UInt8(fraction % 10))
    }

    mutating func family(_ name: StaticString, _ type: StaticString, _ help: StaticString) {
        append("# HELP ")
        append(name)
        append(" ")
        append(help)
        append("\n# TYPE ")
        append(name)
        append(" ")
        append(type)
        append("\n")
    }

    /// `name{labels,level="0",role="leaf"} number`: a series per chain level.
    mutating func levelSample(_ name: StaticString, _ labels: [UInt8], _ level: LevelReport, _ number: Double) {
        append(name)
        append("{")
        append(labels)
        append(",level=\"")
        append(integer: Int64(level.level))
        append("\",role=\"")
        append(string: level.role.rawValue)
        append("\"} ")
        append(number: number)
        append("\n")
    }

    /// `name{labels,key="value"} number`; `labels` nil for a sample without any.
    mutating func sample(_ name: StaticString, _ labels: [UInt8]?, _ key: StaticString?, _ value: String?, _ number: Double) {
        append(name)
        if let labels {
            append("{")
            append(labels)
            if let key, let value {
                if !labels.isEmpty { append(",") }
                append(key)
                append("=\"")
                append(string: value)
                append("\"")
            }
            append("}")
        }
        append(" ")
        append(number: number)
        append("\n")
    }
}

extension PrometheusExposition {
    /// `pinwatch_address_status`: one series per status for each probe of
    /// a host with `addresses: all`, so a rotation shows address by address.
    fileprivate static func appendAddressStatus(
        _ report: HostReport, labels: [UInt8], statusTails: [[UInt8]], to buffer: inout ExpositionBuffer
    ) {
        for verdict in report.variants {
            var probeLabels = ",address=\"\(escape(verdict.variant.address ?? ""))\""
            if let keyType = verdict.variant.keyType { probeLabels += ",key_type=\"\(keyType.rawValue)\"" }
            let probe = Array(probeLabels.utf8)
            for (position, value) in HostStatus.allCases.enumerated() {
                buffer.append("pinwatch_address_status{")
                buffer.append(labels)
                buffer.append(probe)
                buffer.append(statusTails[position])
                buffer.append(verdict.status == value ? "1\n" : "0\n")
            }
        }
    }
}
