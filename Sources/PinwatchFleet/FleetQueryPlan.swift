import Foundation
import PinwatchCore

/// The PromQL of one refresh of the fleet view: Prometheus counts and
/// sorts, and only the rows a screen shows (and their facts) come back,
/// so the answer's size follows the window, not the fleet.
///
/// Every host name that goes back into a query came from an answer, so
/// it is escaped twice: as a regular expression (RE2), then as a PromQL
/// string.
package struct FleetQueryPlan: Hashable, Sendable {
    /// `--match`'s matchers, without braces; empty for none.
    package let selector: String
    /// Keep the rows of `/probe` scrapes (a `--match` selects them):
    /// without it only rows of exporters that report a cycle count.
    package let probeSeries: Bool

    package init(selector: String, probeSeries: Bool) {
        self.selector = selector
        self.probeSeries = probeSeries
    }

    /// The label the count query marks its parts with.
    package static let partLabel = "pinwatch_count"

    /// The families only the detail view shows (a probe's time, each
    /// address's status, whether the pins survive each next chain): asked
    /// for one host, when its detail is open.
    package static let detailFamilies: [MetricFamilyName] = [.addressStatus, .probeDuration, .nextChainSurvives]

    /// The per-row families the table's cells read, for the rows of the window.
    package static var rowFamilies: [MetricFamilyName] {
        FleetSnapshot.families.filter {
            ![.hostReasonInfo, .lastCycle, .pollInterval, .caLevelInfo].contains($0) && !detailFamilies.contains($0)
        }
    }

    /// What the window's facts answer holds: the rows' families and the
    /// CA levels their chains name.
    package static var factFamilies: [MetricFamilyName] { rowFamilies + [.caLevelInfo] }

    /// `{__name__=~"a|b",M,extra}`; `{__name__="a",M,extra}` for one family.
    func series(_ families: [MetricFamilyName], _ extra: [String] = []) -> String {
        let names = families.map(\.rawValue).joined(separator: "|")
        let name = families.count == 1 ? "__name__=\"\(names)\"" : "__name__=~\"\(names)\""
        return "{" + ([name] + matchers(extra)).joined(separator: ",") + "}"
    }

    /// `--match`'s matchers and `extra`, comma-separated.
    private func matchers(_ extra: [String]) -> [String] {
        (selector.isEmpty ? [] : [selector]) + extra
    }

    /// An exporter's own families (its cycle, interval, CA levels) of the
    /// exporters `--match` selects rows of. They carry none of a host's
    /// labels, so a matcher on `host` or `port` would leave every row
    /// without its exporter's cycle and CA levels; the rows' exporters
    /// pick them instead.
    package func exporterSeries(_ families: [MetricFamilyName]) -> String {
        let all = Self(selector: "", probeSeries: probeSeries).series(families)
        guard !selector.isEmpty else { return all }
        return "(\(all) and on (job, instance) group by (job, instance) (\(named(.hostReasonInfo))))"
    }

    private func named(_ family: MetricFamilyName, _ extra: [String] = []) -> String {
        let inner = matchers(extra).joined(separator: ",")
        return family.rawValue + (inner.isEmpty ? "" : "{\(inner)}")
    }

    /// The rows (`pinwatch_host_reason_info`), without `/probe` ones
    /// unless kept: those come from exporters that report no cycle.
    func reasons(_ extra: [String] = []) -> String {
        let rows = named(.hostReasonInfo, extra)
        return probeSeries ? rows : "(\(rows) and on (job, instance) \(named(.lastCycle)))"
    }

    /// The labels a row is told apart by (`FleetSnapshot`'s row key and its exporter).
    static let rowIdentity = "host, port, sni, address, vantage, job, instance"

    /// Hosts whose vantages' headlines differ.
    func disagreement(_ extra: [String] = []) -> String {
        "count by (host, port, sni, address) (count by (host, port, sni, address, headline) (\(reasons(["vantage!=\"\""] + extra)))) > 1"
    }

    /// The whole fleet's counts by severity, status and headline, those
    /// acknowledged apart, the `/probe` rows left out, the number of hosts
    /// whose vantages disagree; and the instances' cycles and intervals.
    package var counts: String {
        let part = Self.partLabel
        var parts = [
            "count by (severity, status, headline) (\(reasons()))",
            "label_replace(count by (severity, status, headline) (\(reasons()) and on (\(Self.rowIdentity)) (\(named(.hostAcknowledged)) == 1)), \"\(part)\", \"acknowledged\", \"\", \"\")",
            "label_replace(count(\(disagreement())), \"\(part)\", \"disagreeing\", \"\", \"\")",
        ]
        if !probeSeries {
            parts.append(
                "label_replace(count(\(named(.hostReasonInfo)) unless on (job, instance) \(named(.lastCycle))), \"\(part)\", \"probe\", \"\", \"\")"
            )
        }
        parts.append(exporterSeries([.lastCycle, .pollInterval]))
        return parts.joined(separator: " or ")
    }

    /// The worst rows that fit: each severity band worst first, as many of
    /// it as `bands` says; nil when no band has a row.
    package func rows(_ bands: [(severity: HostSeverity, count: Int)], hostContains: String? = nil) -> String? {
        let named = hostContains.map { ["host=~" + Self.literal("(?i).*" + Self.escapedForRegex($0) + ".*")] } ?? []
        let parts = bands.filter { $0.count > 0 }.map { band in
            "topk(\(band.count), \(reasons(["severity=\"\(band.severity.rawValue)\""] + named)))"
        }
        return parts.isEmpty ? nil : parts.joined(separator: " or ")
    }

    /// The table's facts of the rows of `hosts`, and the CA levels
    /// (`pinwatch_ca_level_info`, not a host's series) of their chains.
    package func facts(hosts: [String]) -> String {
        let hostMatcher = "host=~\(Self.literal(Self.alternation(hosts)))"
        return series(Self.rowFamilies, [hostMatcher])
            // The chains' own exporters pick their CA levels, whatever `--match` names.
            + " or (\(MetricFamilyName.caLevelInfo.rawValue) and on (job, instance, ca_chain) \(named(.chainInfo, [hostMatcher])))"
    }

    /// Which of `hosts` have vantages that disagree.
    package func disagreeing(hosts: [String]) -> String {
        disagreement(["host=~\(Self.literal(Self.alternation(hosts)))"])
    }

    /// What only the detail view shows, of one host on one port, every vantage.
    package func detail(host: String, port: Int) -> String {
        series(Self.detailFamilies, ["host=\(Self.literal(host))", "port=\"\(port)\""])
    }

    /// The severity bands to ask for: worst first, until `window` rows.
    /// `filtered`: the counts are the whole fleet's, not the filter's, so
    /// every band is asked for up to a window of its own.
    package static func bands(_ counts: FleetCounts, window: Int, filtered: Bool = false) -> [(severity: HostSeverity, count: Int)] {
        var left = max(0, window)
        var bands: [(severity: HostSeverity, count: Int)] = []
        for severity in HostSeverity.worstFirst where left > 0 {
            let count = min(left, counts.total(of: severity))
            guard count > 0 else { continue }
            bands.append((severity, count))
            if !filtered { left -= count }
        }
        return bands
    }

    /// A regular expression (RE2, which Prometheus anchors) matching
    /// exactly `values`: every metacharacter escaped.
    package static func alternation(_ values: [String]) -> String {
        let unique = Array(Set(values)).sorted()
        return unique.map(escapedForRegex).joined(separator: "|")
    }

    static func escapedForRegex(_ value: String) -> String {
        // Byte by byte: every character escaped is ASCII, and no byte of a
        // longer UTF-8 sequence is (a chunk names thousands of hosts).
        var out: [UInt8] = []
        out.reserveCapacity(value.utf8.count + 8)
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\\"), UInt8(ascii: "."), UInt8(ascii: "+"), UInt8(ascii: "*"), UInt8(ascii: "?"), UInt8(ascii: "("),
                UInt8(ascii: ")"), UInt8(ascii: "|"), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "{"), UInt8(ascii: "}"),
                UInt8(ascii: "^"), UInt8(ascii: "$"):
                out.append(UInt8(ascii: "\\"))
            default: break
            }
            out.append(byte)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A PromQL double-quoted string: backslash, quote and every character
    /// outside printable ASCII escaped (Go's escapes, which PromQL reads).
    package static func literal(_ value: String) -> String {
        var out: [UInt8] = [UInt8(ascii: "\"")]
        out.reserveCapacity(value.utf8.count + 8)
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case "\"": out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case " "..."~": out.append(UInt8(scalar.value))
            default:
                let escape = scalar.value <= 0xFFFF ? String(format: "\\u%04x", scalar.value) : String(format: "\\U%08x", scalar.value)
                out += escape.utf8
            }
        }
        out.append(UInt8(ascii: "\""))
        return String(decoding: out, as: UTF8.self)
    }
}
