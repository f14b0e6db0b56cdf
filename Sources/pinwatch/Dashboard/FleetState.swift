import Foundation
import PinwatchCore
import PinwatchFleet
import PinwatchUI

/// A fleet's answer on the dashboard's state: the live `watch --prometheus`
/// and the one-shot `snapshot --prometheus` show it the same way.
struct FleetView {
    let server: String
    private(set) var oldestCycle: Date?
    private(set) var lastAnswerAt: Date?
    /// `host:port` of the hosts whose vantages disagree.
    private(set) var disagreeing: [String] = []
    /// Samples of the latest answer that were not read (see `FleetSnapshot.skipped`).
    private(set) var skipped = 0

    init(server: String) {
        self.server = server
    }

    /// Records every row; true when a host got worse (the bell).
    mutating func show(_ fleet: FleetSnapshot, on state: inout DashboardState, config: Config, at now: Date) -> Bool {
        lastAnswerAt = now
        oldestCycle = fleet.oldestCycle
        skipped = fleet.skipped
        disagreeing = Set(
            fleet.hosts.filter { fleet.disagreeing.contains($0.hostKey) }.map { HostConfig(host: $0.host, port: $0.port).displayName }
        ).sorted()
        let hosts = fleet.hosts.map(\.config)
        if hosts.map(\.identityKey) != state.hosts.map(\.identityKey) {
            state.replaceHosts(hosts, warnDays: config.warnDays, criticalDays: config.criticalDays)
        }
        state.beginCycle(total: hosts.count, at: now)
        var worse = false
        for (index, host) in fleet.hosts.enumerated() where state.record(host.report(now: now), forHost: index, at: now) {
            worse = true
        }
        state.finishCycle(at: now)
        return worse
    }

    /// `prometheus URL · 3 vantages · oldest cycle 12s ago · ≠ vantages disagree on 1: api.example.com:443`
    func note(for state: DashboardState, now: Date) -> String {
        var parts = ["prometheus \(server)"]
        let vantages = Set(state.hosts.compactMap(\.vantage))
        if vantages.count > 1 { parts.append("\(vantages.count) vantages") }
        if let oldestCycle {
            parts.append("oldest cycle \(Formatting.duration(now.timeIntervalSince(oldestCycle))) ago")
        } else if lastAnswerAt == nil {
            parts.append("no answer yet")
        }
        if state.sourceProblem != nil, let lastAnswerAt {
            parts.append("last answer \(Formatting.duration(now.timeIntervalSince(lastAnswerAt))) ago")
        }
        if skipped > 0 {
            parts.append("\(skipped) sample\(skipped == 1 ? "" : "s") skipped (not pinwatch's shape or values)")
        }
        if !disagreeing.isEmpty {
            parts.append("≠ vantages disagree on \(disagreeing.count): \(disagreeing.prefix(3).joined(separator: ", "))")
        }
        return parts.joined(separator: " · ")
    }

    /// The banner's sentence for an answer with no rows.
    static func nothingMatches(_ query: FleetQuery) -> String {
        "Prometheus answered, but no pinwatch series match \(query.selector.isEmpty ? "" : "{\(query.selector)} ")"
            + "(is serve scraped, with this --match?)"
    }
}
