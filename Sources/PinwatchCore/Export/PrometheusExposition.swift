import Foundation

/// The Prometheus text exposition format (version 0.0.4) of one completed
/// cycle: what `snapshot --format prometheus` prints for node_exporter's
/// textfile collector and what `serve` answers on `/metrics`.
///
/// Written by hand rather than through a metrics library: the values are
/// a snapshot of reports, not counters updated in place, and the format is
/// a few lines of text that `promtool check metrics` validates in the
/// tests. Names follow the Prometheus conventions: `pinwatch_` prefix, base
/// units (`_seconds`), `_info` for labels-as-data (a host's status is a
/// label of its reason series, not a series per status). Label values are
/// sanitised for terminals, then escaped.
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
        /// The Certificate Transparency logs followed (`ct: {logs:}`); nil without.
        public var ctLogs: [CTLogState]?

        public init(
            finishedAt: Date, duration: TimeInterval, completedCycles: Int, interval: TimeInterval? = nil,
            failures: [LocalResourceShortage: Int] = [:], ctLogs: [CTLogState]? = nil
        ) {
            self.ctLogs = ctLogs
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
    public static func render(
        _ reports: [HostReport], cycle: Cycle?, version: String, vantage: String? = nil, deprecatedSeries: Bool = false
    ) -> String {
        String(
            decoding: PrometheusRenderer().render(
                reports, cycle: cycle, version: version, vantage: vantage, deprecatedSeries: deprecatedSeries),
            as: UTF8.self)
    }
}

/// Renders exposition text cycle after cycle, a loop over the family
/// table (`MetricFamily.all`), keeping a buffer per host family: `serve`
/// renders 10,000 hosts (17 MB) once per cycle, and fresh buffers every
/// time cost as much in page faults as the writing itself. One renderer
/// per thread (it is not shared).
public final class PrometheusRenderer {
    /// One per family of the table, in its order; only host families' fill.
    private var buffers = MetricFamily.all.map { _ in ExpositionBuffer(capacity: 0) }

    public init() {}

    /// `vantage` (`vantage:`) labels every host series and the build info,
    /// so instances in several networks can watch the same hosts;
    /// `deprecatedSeries` (`deprecated_series:`) adds the deprecated families.
    public func render(
        _ reports: [HostReport], cycle: PrometheusExposition.Cycle?, version: String, vantage: String? = nil,
        deprecatedSeries: Bool = false
    ) -> [UInt8] {
        let families = MetricFamily.all
        let present = families.map { $0.isPresent(cycle: cycle, deprecatedSeries: deprecatedSeries) }
        for index in buffers.indices { buffers[index].bytes.removeAll(keepingCapacity: true) }
        // One pass over the reports, one buffer per family: the format wants
        // each family's samples together, and touching each report once
        // keeps the copying (and reference counting) to one per host.
        let shared = RenderShared(reports)
        var errorCounts: [ProbeErrorKind: Int] = [:]
        var caChains: [String] = []
        caChains.reserveCapacity(reports.count)
        for report in reports {
            let host = HostLine(
                labels: Array(PrometheusExposition.hostLabels(report, vantage: vantage).utf8),
                caChain: MetricFamilyName.caChain(report.levels), render: shared)
            caChains.append(host.caChain)
            for (index, family) in families.enumerated() where present[index] {
                if case .host(let write) = family.scope { write(&buffers[index], family.nameBytes, report, host) }
            }
            if let failure = report.result.failure { errorCounts[failure.kind, default: 0] += 1 }
        }

        let render = RenderFacts(
            reports: reports, caChains: caChains, cycle: cycle, version: version, vantage: vantage, errorCounts: errorCounts)
        var out = ExpositionBuffer(capacity: 4_096 + buffers.reduce(0) { $0 + $1.bytes.count })
        for (index, family) in families.enumerated() where present[index] {
            switch family.scope {
            case .host:
                out.family(family)
                out.append(buffers[index].bytes)
            case .exposition(let write):
                out.family(family)
                write(&out, family.nameBytes, render)
            case .history, .scrape, .probe, .clientReports:
                break
            }
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
