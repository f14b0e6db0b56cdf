import Foundation
import PinwatchCore

extension HistoryStore {
    struct HostState {
        var id: Int64
        var chainID: Int64?
        var certificateDigests: [[UInt8]] = []
        var chain: ObservedChain?
        /// The latest row's status, severity and headline (nil in a row
        /// older than the headline column: then it is not compared).
        var status: (status: String, severity: String, headline: String?)?
        var since: Date?
        var recentChanges: [Date] = []
        /// The latest chain change (from the chain before it); Core
        /// decides whether it is a `chain_changed`.
        var latestChange: ChainChangeFacts?
        /// When each distinct leaf seen was issued, by its digest.
        var leafIssues: [[UInt8]: Date] = [:]
        var recent: [TimelineEntry] = []
        /// Each probe's latest chain (row, digests, since when), by probe label.
        var probeChains: [String: (id: Int64, digests: [[UInt8]], since: Date)] = [:]

        static let recentCount = 5

        mutating func remember(_ entry: TimelineEntry) {
            recent.append(entry)
            if recent.count > Self.recentCount { recent.removeFirst(recent.count - Self.recentCount) }
        }
    }

    /// The host's row and what the store remembers of it, read once per run.
    func hostState(for host: HostConfig, at date: Date) throws -> HostState {
        if let state = hosts[host.identityKey] { return state }
        if let state = try storedHostState(for: host, at: date) { return state }
        // A host the writer has not recorded yet: no history to show.
        guard writes else { return HostState(id: -1) }
        try connection.query(
            "INSERT INTO host(identity, host, port, sni, connect) VALUES (?1, ?2, ?3, ?4, ?5)",
            [
                .text(host.identityKey), .text(host.host), .integer(Int64(host.port)), .text(host.serverName),
                host.connectAddress.map { .text($0) } ?? .null,
            ])
        return HostState(id: connection.lastInsertedRowID)
    }

    /// What the file holds of a host, nil when it never recorded it; reads only.
    private func storedHostState(for host: HostConfig, at date: Date) throws -> HostState? {
        var id: Int64?
        try connection.query("SELECT id FROM host WHERE identity = ?1", [.text(host.identityKey)]) { id = $0.integer(0) }
        guard let id else { return nil }
        var state = HostState(id: id)
        let chains = try chains(hostID: id, limit: 13)
        state.leafIssues = Self.leafIssues(in: chains)
        // The chain served last is the latest change's, which may be an old one back again.
        var latestChanges: [ChainChange] = []
        try connection.query(
            "SELECT at, chain_id FROM chain_change WHERE host_id = ?1 ORDER BY at DESC, id DESC LIMIT 2", [.integer(id)]
        ) { latestChanges.append(ChainChange(at: $0.integer(0), chainID: $0.integer(1))) }
        var known = Dictionary(chains.map { ($0.id, $0.chain) }, uniquingKeysWith: { first, _ in first })
        for change in latestChanges where known[change.chainID] == nil {
            known[change.chainID] = try chain(id: change.chainID)?.chain
        }
        if let latest = latestChanges.first, let chain = known[latest.chainID] {
            state.chainID = latest.chainID
            state.chain = chain
            state.certificateDigests = chain.levels.map(\.certSHA256)
            if latestChanges.count == 2, let previous = known[latestChanges[1].chainID] {
                state.latestChange = ChainChangeFacts(
                    previous: previous, current: chain, at: Date(timeIntervalSince1970: Double(latest.at)))
            }
        }
        try connection.query(
            "SELECT probe, chain_id, at FROM probe_chain_change WHERE host_id = ?1 ORDER BY at, id", [.integer(id)]
        ) { state.probeChains[$0.text(0)] = ($0.integer(1), [], Date(timeIntervalSince1970: Double($0.integer(2)))) }
        let statuses = try statuses(hostID: id, since: nil)
        if let last = statuses.last {
            state.status = (last.status.rawValue, last.severity.rawValue, last.headline?.rawValue)
            // Since the status began: the first row of the latest run of it.
            var since = last.date
            for status in statuses.reversed() {
                guard status.status == last.status else { break }
                since = status.date
            }
            state.since = since
        }
        var previous: HostStatus?
        for status in statuses where status.status != previous {
            if previous != nil { state.recentChanges.append(status.date) }
            previous = status.status
        }
        state.recentChanges = state.recentChanges.filter { date.timeIntervalSince($0) <= 86_400 }
        try streamEntries(
            hostID: id, window: HistoryWindow(since: nil, limit: HostState.recentCount), heading: { _ in },
            entry: { state.recent.append($0) })
        return state
    }

    /// `report` with the history recorded for its host, recording nothing:
    /// `inspect`'s picture of a host that a `watch`, `serve`, `snapshot` or
    /// `check` records (the same host, port, SNI and connect address).
    /// The status's start is given only while the recorded status is the
    /// report's, so a live result is never dated by an older one.
    package func recordedHistory(of report: HostReport, now: Date) throws(HistoryError) -> HostReport {
        let stored: HostState?
        do {
            stored = try storedHostState(for: report.config, at: now)
        } catch {
            throw HistoryError(path, "\(error)")
        }
        guard let state = stored else { return report }
        let sameStatus = state.status?.status == report.status.rawValue
        let history = HostHistory(
            statusSince: sameStatus ? state.since : nil, changesLast24Hours: state.recentChanges.count,
            renewal: Self.renewal(leafIssues: state.leafIssues, chain: state.chain, catalogue: catalogue, now: now),
            latestChainChange: state.latestChange, recent: state.recent,
            previousStatus: state.status.flatMap { HostStatus(rawValue: $0.status) },
            previousSeverity: state.status.flatMap { HostSeverity(rawValue: $0.severity) })
        return report.with(history: history, now: now)
    }
}
