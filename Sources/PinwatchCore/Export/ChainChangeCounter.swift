import Foundation

/// Each host's CA-level chain changes since `serve` started, as a counter:
/// `chain_changed` is a state that ends, this is the event, so a rule sees
/// `increase(pinwatch_chain_changes_total[1h]) > 0` however its scrapes fall
/// between cycles.
public struct ChainChangeCounter: Sendable {
    private let started: Date
    /// When the change last counted for each host happened.
    private var counted: [String: Date] = [:]
    private var totals: [String: Int] = [:]

    /// Changes the history recorded before `started` were counted by the
    /// run that saw them: a restart must not count them again.
    public init(started: Date) {
        self.started = started
    }

    public mutating func observe(_ report: HostReport) {
        let key = report.config.identityKey
        guard let changedAt = report.history?.caChangedAt, changedAt >= started, counted[key] != changedAt else { return }
        counted[key] = changedAt
        totals[key, default: 0] += 1
    }

    public func total(for host: HostConfig) -> Int {
        totals[host.identityKey] ?? 0
    }

    /// One series per host, zeros included: a counter that first appears
    /// at 1 would hide its first increase from `increase()`.
    public func exposition(_ reports: [HostReport], vantage: String? = nil) -> String {
        let family = MetricFamily.of(.chainChanges)
        var out = ExpositionBuffer(capacity: 0)
        out.family(family)
        for report in reports {
            let labels = Array(PrometheusExposition.hostLabels(report, vantage: vantage).utf8)
            out.sample(family.nameBytes, labels, nil, nil, Double(total(for: report.config)))
        }
        return String(decoding: out.bytes, as: UTF8.self)
    }
}
