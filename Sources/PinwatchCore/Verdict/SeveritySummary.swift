/// How many hosts have each severity: beside `StatusSummary`, the one
/// count that the header, `check`'s line, JSON's `summary.severity`, the
/// exporter's gauges and its cycle log all read.
public struct SeveritySummary: Hashable, Sendable {
    private var counts: [HostSeverity: Int] = [:]

    public init<Reports: Sequence>(_ reports: Reports) where Reports.Element == HostReport {
        for report in reports { counts[report.severity, default: 0] += 1 }
    }

    /// The hosts that have a result; those still waiting count nowhere.
    public init<Reports: Sequence>(_ reports: Reports) where Reports.Element == HostReport? {
        for case let report? in reports { counts[report.severity, default: 0] += 1 }
    }

    /// Another count's hosts added: counts made in parts.
    package mutating func add(_ other: SeveritySummary) {
        counts.merge(other.counts, uniquingKeysWith: +)
    }

    /// One more report counted: for reports made one at a time.
    package mutating func count(_ report: HostReport) {
        count(report.severity)
    }

    /// One more host of `severity`: for rows whose verdict was decided elsewhere.
    package mutating func count(_ severity: HostSeverity) {
        counts[severity, default: 0] += 1
    }

    public func count(of severity: HostSeverity) -> Int {
        counts[severity] ?? 0
    }

    /// `2 critical, 1 warning`: the severities that have hosts, worst first.
    public var text: String {
        HostSeverity.worstFirst.filter { count(of: $0) > 0 }.map { "\(count(of: $0)) \($0.rawValue)" }.joined(separator: ", ")
    }
}
