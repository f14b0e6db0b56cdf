import Foundation
import PinwatchCore

extension HistoryStore {
    /// Every recorded host named `host` (on `port`, when given), whole:
    /// one per SNI/connect combination.
    package func timelines(host: String, port: Int?, now: Date = Date()) throws(HistoryError) -> [HostTimeline] {
        var timelines: [HostTimeline] = []
        try forEachTimeline(
            host: host, port: port, window: .all, now: now, heading: { heading, _ in timelines.append(heading) },
            entry: { timelines[timelines.count - 1].entries.append($0) })
        return timelines
    }

    /// Every recorded host named `host` (on `port`, when given): `heading`
    /// (no entries) with how many earlier entries `window` leaves out, then
    /// `entry` for each entry shown, oldest first. Status rows are read
    /// one at a time, never all at once. Returns the number of hosts.
    @discardableResult
    package func forEachTimeline(
        host: String, port: Int?, window: HistoryWindow, now: Date = Date(), heading: (HostTimeline, _ omitted: Int) -> Void,
        entry: (TimelineEntry) -> Void
    ) throws(HistoryError) -> Int {
        do {
            var rows: [(id: Int64, host: String, port: Int, sni: String, connect: String?)] = []
            try connection.query(
                "SELECT id, host, port, sni, connect FROM host WHERE lower(host) = lower(?1) AND (?2 = 0 OR port = ?2) ORDER BY port, id",
                [.text(host), .integer(Int64(port ?? 0))]
            ) { rows.append(($0.integer(0), $0.text(1), Int($0.integer(2)), $0.text(3), $0.isNull(4) ? nil : $0.text(4))) }
            for row in rows {
                let chains = try chains(hostID: row.id)
                let changes = try chainChanges(hostID: row.id)
                let served = changes.last.flatMap { last in chains.first { $0.id == last.chainID } } ?? chains.last
                let renewal = Self.renewal(leafIssues: Self.leafIssues(in: chains), chain: served?.chain, catalogue: catalogue, now: now)
                var timeline = HostTimeline(
                    host: row.host, port: row.port, serverName: row.sni, connect: row.connect, entries: [], renewal: renewal,
                    firstSeen: chains.first?.firstSeen, lastSeen: chains.map(\.lastSeen).max())
                if fileVersion >= 6 { timeline.clientReports = try ClientReportTable.reports(connection, host: row.host, port: row.port) }
                try streamEntries(
                    hostID: row.id, chains: chains, changes: changes, window: window, heading: { heading(timeline, $0) }, entry: entry)
            }
            return rows.count
        } catch {
            throw HistoryError(path, Self.describe(error as? SQLiteError ?? SQLiteError(code: 1, message: "\(error)")))
        }
    }

    /// Chain changes are kept in memory as two numbers each, described only
    /// when shown; status rows are many. The window's latest `limit`
    /// entries are found newest first, stepping at most `limit` rows, then
    /// read again oldest first from there, merged with the chain changes (a
    /// chain first at a tie).
    func streamEntries(
        hostID: Int64, chains: [StoredChain]? = nil, changes: [ChainChange]? = nil, window: HistoryWindow, heading: (Int) -> Void,
        entry: (TimelineEntry) -> Void
    ) throws {
        let chains = try chains ?? self.chains(hostID: hostID)
        // The host's changes first at a tie, then its probes'.
        let changes = try ((changes ?? chainChanges(hostID: hostID)) + probeChainChanges(hostID: hostID)).enumerated()
            .sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(\.element)
        let chainsByID = Dictionary(chains.map { ($0.id, $0.chain) }, uniquingKeysWith: { first, _ in first })
        // Stored times are whole seconds: a window from 10:00:00.5 starts at 10:00:01.
        let since = window.since.map { Int64($0.timeIntervalSince1970.rounded(.up)) } ?? Int64.min
        let firstInWindow = changes.firstIndex { $0.at >= since } ?? changes.count
        let chainEntries = ChainChangeEntries(changes: changes, chains: chainsByID, first: firstInWindow)
        var statusCount = 0
        try connection.query(
            "SELECT count(*) FROM status_change WHERE host_id = ?1 AND at >= ?2", [.integer(hostID), .integer(since)]
        ) { statusCount = Int($0.integer(0)) }
        let total = chainEntries.count + statusCount
        let shown = min(total, window.limit.map { max(0, $0) } ?? total)

        var remaining = shown
        var firstChain = chainEntries.count
        var firstStatus: (at: Int64, id: Int64)?
        try connection.query(
            "SELECT at, id FROM status_change WHERE host_id = ?1 AND at >= ?2 ORDER BY at DESC, id DESC LIMIT ?3",
            [.integer(hostID), .integer(since), .integer(Int64(shown))]
        ) { row in
            let at = row.integer(0)
            while remaining > 0, firstChain > 0, chainEntries.at(firstChain - 1) > at {
                firstChain -= 1
                remaining -= 1
            }
            guard remaining > 0 else { return }
            firstStatus = (at, row.integer(1))
            remaining -= 1
        }
        firstChain -= min(firstChain, remaining)
        heading(total - shown)

        var pendingChain = firstChain
        if let firstStatus {
            var previous: RecordedStatus?
            try connection.query(
                """
                SELECT at, status, severity, reason, \(headlineColumn) FROM status_change
                WHERE host_id = ?1 AND (at < ?2 OR (at = ?2 AND id < ?3))
                ORDER BY at DESC, id DESC LIMIT 1
                """, [.integer(hostID), .integer(firstStatus.at), .integer(firstStatus.id)]
            ) { previous = Self.recordedStatus($0) }
            try connection.query(
                """
                SELECT at, status, severity, reason, \(headlineColumn) FROM status_change
                WHERE host_id = ?1 AND (at > ?2 OR (at = ?2 AND id >= ?3)) ORDER BY at, id
                """, [.integer(hostID), .integer(firstStatus.at), .integer(firstStatus.id)]
            ) { row in
                guard let status = Self.recordedStatus(row) else { return }
                while pendingChain < chainEntries.count, chainEntries.at(pendingChain) <= row.integer(0) {
                    entry(chainEntries[pendingChain])
                    pendingChain += 1
                }
                entry(HistoryTimeline.statusEntry(status, after: previous))
                previous = status
            }
        }
        for index in pendingChain..<chainEntries.count { entry(chainEntries[index]) }
    }
}

/// A host's chain changes in a window, each described against the chain
/// before it when asked for: a host whose backends flap between two leaves
/// has a change per cycle, and only the shown ones need words.
private struct ChainChangeEntries {
    let changes: [HistoryStore.ChainChange]
    let chains: [Int64: ObservedChain]
    /// The first change in the window; index 0 here.
    let first: Int
    /// For each change, the one before it of the same probe (or of the host).
    private let previous: [Int?]

    init(changes: [HistoryStore.ChainChange], chains: [Int64: ObservedChain], first: Int) {
        self.changes = changes
        self.chains = chains
        self.first = first
        var latest: [String: Int] = [:]
        var previous: [Int?] = []
        previous.reserveCapacity(changes.count)
        for (position, change) in changes.enumerated() {
            let key = change.probe ?? ""
            previous.append(latest[key])
            latest[key] = position
        }
        self.previous = previous
    }

    var count: Int { changes.count - first }

    func at(_ index: Int) -> Int64 { changes[first + index].at }

    subscript(index: Int) -> TimelineEntry {
        let position = first + index
        let change = changes[position]
        let date = Date(timeIntervalSince1970: Double(change.at))
        let probe = change.probe.map { "\($0): " } ?? ""
        guard let chain = chains[change.chainID] else {
            return TimelineEntry(date: date, kind: .chain, text: probe + "chain changed (no longer stored)")
        }
        guard let before = previous[position], let previous = chains[changes[before].chainID] else {
            return TimelineEntry(date: date, kind: .chain, text: probe + HistoryTimeline.firstSeen(chain))
        }
        let text = HistoryTimeline.describeChange(from: previous, to: chain).joined(separator: "; ")
        return TimelineEntry(date: date, kind: .chain, text: probe + (text.isEmpty ? "chain re-issued with the same keys" : text))
    }
}
