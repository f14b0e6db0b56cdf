import Foundation
import PinwatchCore
import PinwatchFleet
import PinwatchUI

/// A fleet's answer on the dashboard's state: the live `watch --prometheus`
/// and the one-shot `snapshot --prometheus` show it the same way.
struct FleetView {
    /// A window of the fleet's rows: shown as every answer is, with the
    /// whole fleet's counts in the header while the window leaves rows out.
    mutating func show(
        _ window: FleetWindow, on state: inout DashboardState, config: Config, at now: Date, canLoadMore: Bool
    ) -> Bool {
        let worse = show(window.snapshot, on: &state, config: config, at: now)
        loaded = window.snapshot.hosts.count
        total = window.counts.total
        self.canLoadMore = canLoadMore
        disagreeingTotal = window.counts.disagreeing
        // Every row loaded: the header counts the rows, as for a local fleet
        // (and an instance gone keeps its stale rows counted).
        state.fleetTally = isWindowed ? Self.tally(window.counts) : nil
        return worse
    }

    /// The window leaves rows of the fleet out.
    var isWindowed: Bool { loaded < total }

    static func tally(_ counts: FleetCounts) -> FleetTally {
        var severities: [HostSeverity: Int] = [:]
        var headlines: [HostHeadline: HeadlineTally] = [:]
        for (group, count) in counts.rows {
            severities[group.severity, default: 0] += count - (counts.acknowledged[group] ?? 0)
            var tally = headlines[group.headline] ?? HeadlineTally(count: 0, worst: group.severity)
            tally.count += count
            if group.severity.rank > tally.worst.rank { tally.worst = group.severity }
            headlines[group.headline] = tally
        }
        return FleetTally(hosts: counts.total, severities: severities, acknowledged: counts.acknowledgedTotal, headlines: headlines)
    }

    /// An instance missing from the latest answer that an earlier one had.
    struct GoneInstance: Hashable {
        var name: String
        /// The last answer that had it.
        var lastSeen: Date
        var rows: Int
    }

    let server: String
    /// The view's own refresh interval, when it is known.
    var refresh: TimeInterval?
    private(set) var lastAnswerAt: Date?
    private(set) var instances: [FleetInstance] = []
    /// `host:port` of the hosts whose vantages disagree.
    private(set) var disagreeing: [String] = []
    /// Samples of the latest answer that were not read (see `FleetSnapshot.skipped`).
    private(set) var skipped = 0
    private(set) var probeRows = 0
    private(set) var gone: [GoneInstance] = []
    /// The rows loaded of how many the fleet has (`watch --prometheus`
    /// loads a window of the worst), and whether paging may load more.
    private(set) var loaded = 0
    private(set) var total = 0
    private(set) var canLoadMore = false
    /// Hosts whose vantages disagree in the whole fleet, loaded or not.
    private(set) var disagreeingTotal = 0
    /// Each instance's rows as last seen (by `job` and `instance`), and when.
    private var known: [String: (name: String, rows: [FleetHost], seenAt: Date)] = [:]
    /// False for a view shown one answer (`snapshot --prometheus`): no later
    /// answer can leave an instance out, so no instance's rows are kept.
    private let remembersRows: Bool

    init(server: String, oneAnswer: Bool = false) {
        self.server = server
        remembersRows = !oneAnswer
    }

    /// Records every row, and the last-known rows of instances gone since
    /// an earlier answer; true when a host got worse (the bell). The
    /// answer's rows are taken, not copied: a caller that lets go of
    /// `fleet` does not hold them beside their reports.
    mutating func show(_ fleet: consuming FleetSnapshot, on state: inout DashboardState, config: Config, at now: Date) -> Bool {
        lastAnswerAt = now
        instances = fleet.instances
        skipped = fleet.skipped
        probeRows = fleet.probeRows
        var rows = rowsWithGoneInstances(&fleet, at: now)
        disagreeing = Set(
            rows.filter { fleet.disagreeing.contains($0.hostKey) }.map { HostConfig(host: $0.host, port: $0.port).displayName }
        ).sorted()
        let hosts = rows.map(\.config)
        if !hosts.lazy.map(\.identityKey).elementsEqual(state.hosts.lazy.map(\.identityKey)) {
            state.replaceHosts(hosts, warnDays: config.warnDays, criticalDays: config.criticalDays)
        }
        state.beginCycle(total: hosts.count, at: now)
        var worse = false
        var shared = SharedPinMatches()
        // Each row goes once it is its report, the last first, and the rows
        // left move to a buffer of their size as the buffer empties: the
        // answer's rows are not held beside all of their reports.
        while let host = rows.popLast() {
            if state.record(host.report(now: now, sharing: &shared), forHost: rows.count, at: now) { worse = true }
            if rows.count < rows.capacity / 2 {
                rows = Self.moved(rows)
                FreedMemory.release()
            }
        }
        state.finishCycle(at: now)
        return worse
    }

    /// `rows` in a buffer of their own size.
    private static func moved(_ rows: [FleetHost]) -> [FleetHost] {
        var moved: [FleetHost] = []
        moved.reserveCapacity(rows.count)
        moved.append(contentsOf: rows)
        return moved
    }

    /// A `serve` that stops drops out of Prometheus' answer within a scrape:
    /// its rows stay, marked stale from the last answer that had them,
    /// unless another instance now reports the same host.
    private mutating func rowsWithGoneInstances(_ fleet: inout FleetSnapshot, at now: Date) -> [FleetHost] {
        var rows: [FleetHost] = []
        swap(&rows, &fleet.hosts)
        gone = []
        if remembersRows { rememberRows(&rows, of: fleet.instances, at: now) }
        // In place: a sorted copy would double the answer's rows (the stale
        // ones of gone instances join them unsorted).
        FleetSnapshot.sortInRowOrder(&rows)
        return rows
    }

    /// Keeps each instance's rows for the next answer, and adds those of
    /// the instances gone since, marked stale.
    private mutating func rememberRows(_ rows: inout [FleetHost], of instances: [FleetInstance], at now: Date) {
        func key(_ job: String, _ instance: String) -> String { "\(job)\u{0}\(instance)" }
        func name(_ job: String, _ instance: String) -> String { instance.isEmpty ? (job.isEmpty ? "(unnamed)" : job) : instance }
        var present: [String: (name: String, rows: [FleetHost])] = [:]
        for instance in instances {
            present[key(instance.job, instance.instance)] = (name(instance.job, instance.instance), [])
        }
        for host in rows {
            present[key(host.job, host.instance), default: (name(host.job, host.instance), [])].rows.append(host)
        }
        for (id, entry) in present { known[id] = (entry.name, entry.rows, now) }
        let live = Set(rows.map(\.config.identityKey))
        for (id, entry) in known where present[id] == nil {
            let stale = entry.rows.filter { !live.contains($0.config.identityKey) }.map { row in
                var row = row
                row.staleSince = entry.seenAt
                return row
            }
            rows += stale
            gone.append(GoneInstance(name: entry.name, lastSeen: entry.seenAt, rows: stale.count))
        }
        gone.sort { $0.name < $1.name }
    }

    /// The banner's sentence for instances gone from the answer, or nil.
    func goneProblem(timeZone: TimeZone) -> String? {
        guard !gone.isEmpty else { return nil }
        let names = gone.prefix(3).map { instance in
            "\(instance.name) (since \(Formatting.clock(instance.lastSeen, timeZone: timeZone)), \(instance.rows) host\(instance.rows == 1 ? "" : "s") stale)"
        }
        let more = gone.count > 3 ? " and \(gone.count - 3) more" : ""
        return "serve instance\(gone.count == 1 ? "" : "s") gone from Prometheus' answer: \(names.joined(separator: ", "))\(more);"
            + " their rows show the last-known state"
    }

    /// `prometheus URL · 3 vantages · exporters' cycle 12s ago · refresh every 30s · ≠ vantages disagree on 1: api.example.com:443`
    func note(for state: DashboardState, now: Date) -> String {
        var parts = ["prometheus \(server)"]
        let vantages = Set(state.hosts.compactMap(\.vantage))
        if vantages.count > 1 { parts.append("\(vantages.count) vantages") }
        // Two clocks: when the exporters last probed (the oldest of them),
        // and when this view last asked Prometheus.
        if let oldest = instances.map(\.lastCycle).min() {
            let polls = instances.compactMap(\.pollInterval).min()
            let every = polls.flatMap { $0 == refresh ? nil : " (every \(Formatting.duration($0)))" } ?? ""
            parts.append("exporters' cycle \(Formatting.duration(now.timeIntervalSince(oldest))) ago\(every)")
        }
        // The view's own last answer is the header's "last cycle".
        if let refresh { parts.append("refresh every \(Formatting.duration(refresh))") }
        if isWindowed {
            let more = canLoadMore ? "scroll down for more" : "no more loaded: --match narrows it"
            parts.append("rows 1–\(loaded) of \(total) (worst first; \(more))")
        }
        if lastAnswerAt == nil {
            parts.append("no answer yet")
        } else if state.sourceProblem != nil, let lastAnswerAt {
            parts.append("last answer \(Formatting.duration(now.timeIntervalSince(lastAnswerAt))) ago")
        }
        if skipped > 0 {
            parts.append("\(skipped) sample\(skipped == 1 ? "" : "s") skipped (not pinwatch's shape or values)")
        }
        if probeRows > 0 {
            parts.append("\(probeRows) /probe row\(probeRows == 1 ? "" : "s") left out (--match to select them)")
        }
        // The whole fleet's number once the window leaves hosts out.
        let disagreeingCount = isWindowed ? max(disagreeingTotal, disagreeing.count) : disagreeing.count
        if let first = disagreeing.first {
            // One name: the header keeps room for the sort after it.
            let more = disagreeingCount > 1 ? ", …" : ""
            parts.append("≠ vantages disagree on \(disagreeingCount): \(first)\(more)")
        } else if disagreeingCount > 0 {
            parts.append("≠ vantages disagree on \(disagreeingCount) (none loaded)")
        }
        return parts.joined(separator: " · ")
    }

    /// The banner's sentence for an answer with no rows.
    static func nothingMatches(_ query: FleetQuery) -> String {
        "Prometheus answered, but no pinwatch series match \(query.selector.isEmpty ? "" : "{\(query.selector)} ")"
            + "(is serve scraped, with this --match?)"
    }
}
