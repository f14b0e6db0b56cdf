import Foundation

/// Why `serve` turned a report away: the `reason` label of
/// `pinwatch_client_reports_refused_total`.
public enum ClientReportRefusal: String, Sendable, CaseIterable {
    /// No token, or not the configured one.
    case token
    /// Past the body bound.
    case size
    /// Past the sender's share of the rate.
    case rate
    /// Not JSON, not a report, or for a host pinwatch does not watch.
    case invalid
    /// Accepted but not stored (history off, a write failed).
    case storage
}

/// The reports `serve` received since it started, per configured host,
/// port and client, and those it refused, per reason: counted as they
/// arrive and rendered at each scrape, so a report shows before the
/// next cycle ends.
public struct ClientReportCounts: Sendable {
    private struct Key: Hashable, Sendable {
        var host: String
        var port: Int
        var client: String
    }

    private var accepted: [Key: Int] = [:]
    private var refused: [ClientReportRefusal: Int] = [:]

    public init() {}

    public mutating func count(_ record: ClientReportRecord) {
        accepted[Key(host: record.host, port: record.port, client: record.client), default: 0] += 1
    }

    public mutating func refuse(_ reason: ClientReportRefusal) {
        refused[reason, default: 0] += 1
    }

    public func refusals(_ reason: ClientReportRefusal) -> Int { refused[reason] ?? 0 }

    /// The two families, their headers from the table; every refusal
    /// reason even at zero, so the first refusal is an increase a rule
    /// sees. The labels are configured hosts and releases, or one of the
    /// three formats: never a client's text.
    public func exposition(vantage: String? = nil) -> String {
        let vantageLabel = vantage.map { "vantage=\"\(PrometheusExposition.escape($0))\"" }
        var out = ExpositionBuffer(capacity: 0)
        let received = MetricFamily.of(.clientReports)
        out.family(received)
        for (key, total) in accepted.sorted(by: { ($0.key.host, $0.key.port, $0.key.client) < ($1.key.host, $1.key.port, $1.key.client) }) {
            let labels =
                "host=\"\(PrometheusExposition.escape(key.host))\",port=\"\(key.port)\",client=\"\(PrometheusExposition.escape(key.client))\""
                + (vantageLabel.map { "," + $0 } ?? "")
            out.sample(received.nameBytes, Array(labels.utf8), nil, nil, Double(total))
        }
        let turnedAway = MetricFamily.of(.clientReportsRefused)
        out.family(turnedAway)
        for reason in ClientReportRefusal.allCases {
            out.sample(turnedAway.nameBytes, Array((vantageLabel ?? "").utf8), "reason", reason.rawValue, Double(refused[reason] ?? 0))
        }
        return String(decoding: out.bytes, as: UTF8.self)
    }
}
