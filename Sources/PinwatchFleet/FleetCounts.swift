import Foundation
import PinwatchCore

/// The whole fleet's counts, as Prometheus counted them
/// (`FleetQueryPlan.counts`): what the header says even when only a
/// window of the rows is loaded.
package struct FleetCounts: Hashable, Sendable {
    /// One group of `count by (severity, status, headline)`.
    package struct Group: Hashable, Sendable {
        package var severity: HostSeverity
        package var status: HostStatus
        package var headline: HostHeadline

        package init(severity: HostSeverity, status: HostStatus, headline: HostHeadline) {
            self.severity = severity
            self.status = status
            self.headline = headline
        }
    }

    /// Rows by group, acknowledged ones included.
    package var rows: [Group: Int] = [:]
    /// The acknowledged rows among them, by group.
    package var acknowledged: [Group: Int] = [:]
    /// Hosts whose vantages disagree.
    package var disagreeing = 0
    /// Rows of `/probe` scrapes left out.
    package var probeRows = 0

    package init() {}

    package var total: Int { rows.values.reduce(0, +) }

    package func total(of severity: HostSeverity) -> Int {
        rows.filter { $0.key.severity == severity }.values.reduce(0, +)
    }

    package var acknowledgedTotal: Int { acknowledged.values.reduce(0, +) }

    /// Counts past this are not a fleet's: the answer is not the count asked for.
    static let largest = 100_000_000.0

    /// The counts among `samples`; the instances' samples (a name of their
    /// own) are the caller's, and anything else is not a count. A server
    /// that answers rows where a count was asked still gives a count of
    /// its rows (each a count of one).
    package init(_ samples: [VectorSample]) {
        for sample in samples where sample.labels["__name__"].map(Self.isInstanceFamily) != true {
            guard sample.value >= 0, sample.value <= Self.largest, sample.value == sample.value.rounded() else { continue }
            let count = Int(sample.value)
            switch sample.labels[FleetQueryPlan.partLabel] {
            case "disagreeing": disagreeing += count
            case "probe": probeRows += count
            case let part:
                guard let group = Self.group(sample.labels) else { continue }
                if part == "acknowledged" {
                    acknowledged[group, default: 0] += count
                } else {
                    rows[group, default: 0] += count
                }
            }
        }
    }

    static func isInstanceFamily(_ name: String) -> Bool {
        name == MetricFamilyName.lastCycle.rawValue || name == MetricFamilyName.pollInterval.rawValue
    }

    private static func group(_ labels: VectorLabels) -> Group? {
        guard let severity = labels["severity"].flatMap(HostSeverity.init(rawValue:)),
            let status = labels["status"].flatMap(HostStatus.init(rawValue:)),
            let headline = labels["headline"].flatMap(HostHeadline.init(rawValue:))
        else { return nil }
        return Group(severity: severity, status: status, headline: headline)
    }
}
