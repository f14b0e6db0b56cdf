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

        public init(finishedAt: Date, duration: TimeInterval, completedCycles: Int) {
            self.finishedAt = finishedAt
            self.duration = duration
            self.completedCycles = completedCycles
        }
    }

    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    public static func render(_ reports: [HostReport], cycle: Cycle?, version: String) -> String {
        var out = ""
        out.reserveCapacity(256 + reports.count * 1_800)
        let labels = reports.map(hostLabels)

        family(&out, "pinwatch_host_status", "gauge", "Status of each host: 1 for the status it has now, 0 for the others.")
        for (index, report) in reports.enumerated() {
            for status in HostStatus.allCases {
                sample(&out, "pinwatch_host_status", labels[index], "status", status.rawValue, report.status == status ? "1" : "0")
            }
        }
        family(
            &out, "pinwatch_host_severity", "gauge",
            "Severity of each host (critical, unknown, warning, ok): 1 for its own, 0 for the others.")
        for (index, report) in reports.enumerated() {
            for severity in HostSeverity.worstFirst {
                sample(
                    &out, "pinwatch_host_severity", labels[index], "severity", severity.rawValue, report.severity == severity ? "1" : "0")
            }
        }
        family(&out, "pinwatch_host_alert", "gauge", "Alerts a host has now (only present alerts are exported).")
        for (index, report) in reports.enumerated() {
            for alert in report.alerts {
                sample(&out, "pinwatch_host_alert", labels[index], "alert", alert.rawValue, "1")
            }
        }
        family(&out, "pinwatch_leaf_not_after_seconds", "gauge", "Expiry of each host's leaf certificate, Unix time.")
        for (index, report) in reports.enumerated() {
            guard let leaf = report.levels.first else { continue }
            sample(
                &out, "pinwatch_leaf_not_after_seconds", labels[index], nil, nil,
                number(leaf.certificate.facts.notAfter.timeIntervalSince1970))
        }
        family(&out, "pinwatch_chain_level_info", "gauge", "One series per certificate of each host's chain, with its role and SPKI pin.")
        for (index, report) in reports.enumerated() {
            for level in report.levels {
                let facts = level.certificate.facts
                var extra = ",level=\"\(level.level)\",role=\"\(level.role.rawValue)\""
                extra += ",spki_sha256=\"\(escape(PinText.base64(facts.spkiSHA256)))\",subject=\"\(escape(facts.subject))\""
                out += "pinwatch_chain_level_info{" + labels[index] + extra + "} 1\n"
            }
        }
        family(
            &out, "pinwatch_pin_match", "gauge",
            "Whether a configured pin of the tier that applies matches the chain level (leaf tier at level 0, CA tier above).")
        for (index, report) in reports.enumerated() {
            let pins = report.config.pins
            for level in report.levels {
                let tier: PinTier = level.role == .leaf ? .leaf : .ca
                guard !pins.pins(in: tier).isEmpty else { continue }
                let matched = level.matches.contains { $0.tier == tier }
                out +=
                    "pinwatch_pin_match{" + labels[index] + ",level=\"\(level.level)\",tier=\"\(tier.rawValue)\"} " + (matched ? "1" : "0")
                    + "\n"
            }
        }
        family(&out, "pinwatch_probe_duration_seconds", "gauge", "How long the last probe of each host took.")
        for (index, report) in reports.enumerated() {
            sample(&out, "pinwatch_probe_duration_seconds", labels[index], nil, nil, number(max(0, report.result.elapsed)))
        }
        family(&out, "pinwatch_probe_error", "gauge", "Hosts whose last probe failed, by kind of failure (only failed hosts are exported).")
        for (index, report) in reports.enumerated() {
            guard let failure = report.result.failure else { continue }
            sample(&out, "pinwatch_probe_error", labels[index], "kind", failure.kind.rawValue, "1")
        }

        family(&out, "pinwatch_hosts", "gauge", "Hosts by status.")
        let summary = StatusSummary(reports)
        for status in StatusSummary.reportingOrder {
            out += "pinwatch_hosts{status=\"\(status.rawValue)\"} \(summary.count(of: status))\n"
        }
        family(&out, "pinwatch_hosts_by_severity", "gauge", "Hosts by severity.")
        for severity in HostSeverity.worstFirst {
            out += "pinwatch_hosts_by_severity{severity=\"\(severity.rawValue)\"} \(reports.filter { $0.severity == severity }.count)\n"
        }
        family(&out, "pinwatch_probe_errors", "gauge", "Failed probes of the last cycle, by kind.")
        for kind in ProbeErrorKind.allCases {
            out += "pinwatch_probe_errors{kind=\"\(kind.rawValue)\"} \(reports.filter { $0.result.failure?.kind == kind }.count)\n"
        }
        if let cycle {
            family(&out, "pinwatch_cycle_duration_seconds", "gauge", "How long the last completed cycle took.")
            out += "pinwatch_cycle_duration_seconds \(number(cycle.duration))\n"
            family(&out, "pinwatch_last_cycle_timestamp_seconds", "gauge", "When the last cycle completed, Unix time.")
            out += "pinwatch_last_cycle_timestamp_seconds \(number(cycle.finishedAt.timeIntervalSince1970))\n"
            family(&out, "pinwatch_cycles_total", "counter", "Cycles completed since start.")
            out += "pinwatch_cycles_total \(cycle.completedCycles)\n"
        }
        family(&out, "pinwatch_build_info", "gauge", "The running pinwatch's version.")
        out += "pinwatch_build_info{version=\"\(escape(version))\"} 1\n"
        return out
    }

    private static func family(_ out: inout String, _ name: String, _ type: String, _ help: String) {
        out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
    }

    private static func sample(_ out: inout String, _ name: String, _ labels: String, _ key: String?, _ value: String?, _ number: String) {
        out += name
        out += "{"
        out += labels
        if let key, let value {
            out += ",\(key)=\"\(value)\""
        }
        out += "} "
        out += number
        out += "\n"
    }

    /// `host="…",port="…",sni="…"`, computed once per host and reused by every family.
    private static func hostLabels(_ report: HostReport) -> String {
        let config = report.config
        return "host=\"\(escape(config.host))\",port=\"\(config.port)\",sni=\"\(escape(config.serverName))\""
    }

    /// Label values: backslash, double quote and newline escaped, as the
    /// format requires; certificate text made safe for terminals first.
    static func escape(_ text: String) -> String {
        let clean = TerminalText.sanitize(text)
        guard clean.contains(where: { $0 == "\\" || $0 == "\"" || $0 == "\n" }) else { return clean }
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

    /// Integers without a fraction, others with up to millisecond precision.
    private static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(format: "%.3f", value)
    }
}
