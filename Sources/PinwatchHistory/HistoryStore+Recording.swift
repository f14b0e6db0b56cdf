import Foundation
import PinwatchCore

extension HistoryStore {
    /// A failed write (disk full, file system gone read-only…) rolls back
    /// and leaves the reports without history; the next call tries again,
    /// so recording resumes by itself once the space is back.
    package func record(_ reports: [HostReport], at date: Date) -> [HostReport] {
        // The transaction rolls back whole on failure: so must what this
        // store remembers of it (row ids, last chains), or the next cycle
        // would skip the changes that were never written.
        undo = Undo()
        do {
            let annotated = try connection.transaction {
                var unchanged: [Int64] = []
                let reported = try clientReportFacts(at: date)
                let annotated = try reports.map {
                    try record($0, at: date, clientReports: reported["\($0.config.host):\($0.config.port)"], unchangedChains: &unchanged)
                }
                // One statement for every chain seen again: most hosts, most cycles.
                if writes, !unchanged.isEmpty {
                    try connection.query(
                        "UPDATE chain SET last_seen = ?1 WHERE id IN (SELECT value FROM json_each(?2))",
                        [.integer(Int64(date.timeIntervalSince1970)), .text("[" + unchanged.map(String.init).joined(separator: ",") + "]")])
                }
                return annotated
            }
            updateHealth { $0.failing = false }
            return annotated
        } catch {
            for (key, state) in undo.hosts { hosts[key] = state }
            for digest in undo.certificates { certificateIDs[digest] = nil }
            for text in undo.names { nameIDs[text] = nil }
            let message = "\(path): \(error)"
            updateHealth {
                $0.failedWrites += 1
                $0.lastFailure = message
                $0.failing = true
            }
            return reports
        }
    }

    package var writeHealth: HistoryWriteHealth {
        healthLock.lock()
        defer { healthLock.unlock() }
        return health
    }

    private func updateHealth(_ change: (inout HistoryWriteHealth) -> Void) {
        healthLock.lock()
        change(&health)
        healthLock.unlock()
    }

    private func record(
        _ report: HostReport, at date: Date, clientReports: ClientReportFacts?, unchangedChains: inout [Int64]
    ) throws -> HostReport {
        var state = try hostState(for: report.config, at: date)
        let seconds = Int64(date.timeIntervalSince1970)
        if let chain = ObservedChain(report) {
            let digests = chain.levels.map(\.certSHA256)
            if digests == state.certificateDigests, let chainID = state.chainID {
                unchangedChains.append(chainID)
            } else {
                if let previous = state.chain {
                    let change = HistoryTimeline.describeChange(from: previous, to: chain).joined(separator: "; ")
                    if !change.isEmpty { state.remember(TimelineEntry(date: date, kind: .chain, text: change)) }
                    state.latestChange = ChainChangeFacts(previous: previous, current: chain, at: date)
                } else {
                    state.remember(TimelineEntry(date: date, kind: .chain, text: HistoryTimeline.firstSeen(chain)))
                }
                if let leaf = chain.leaf {
                    state.leafIssues[leaf.certSHA256] = leaf.notBefore
                    // The forecast reads the latest dozen: a flapping host must not grow this.
                    if state.leafIssues.count > 24, let oldest = state.leafIssues.min(by: { $0.value < $1.value })?.key {
                        state.leafIssues[oldest] = nil
                    }
                }
                if writes {
                    let chainID = try storeChain(chain, hostID: state.id, seconds: seconds)
                    try connection.query(
                        "INSERT INTO chain_change(host_id, chain_id, at) VALUES (?1, ?2, ?3)",
                        [.integer(state.id), .integer(chainID), .integer(seconds)])
                    state.chainID = chainID
                }
                state.certificateDigests = digests
                state.chain = chain
            }
        }
        // A reader sees the writer's per-probe rows when it reads a host's
        // timeline; it adds none of its own.
        if writes { try recordProbeChains(of: report, state: &state, date: date) }
        let recordedBefore = state.status
        // What is recorded is what the host is announced with: its verdict
        // with the chain change this store decides. A status recorded
        // without it (ok while the hooks were told chain_changed) made the
        // first result after a restart a transition, announced again.
        var decided = HostHistory(latestChainChange: state.latestChange)
        decided.clientReports = clientReports
        let announced = report.with(history: decided, now: date)
        let current = (
            status: announced.status.rawValue, severity: announced.severity.rawValue, headline: announced.headline.rawValue
        )
        let changed =
            state.status.map { stored in
                stored.status != current.status || stored.severity != current.severity
                    || (stored.headline.map { $0 != current.headline } ?? false)
            } ?? true
        if changed {
            if writes {
                try connection.query(
                    """
                    INSERT INTO status_change(host_id, at, status, severity, reason, alerts, headline)
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                    """,
                    [
                        .integer(state.id), .integer(seconds), .text(current.status), .text(current.severity), .text(announced.reason),
                        .text(announced.alerts.map(\.rawValue).joined(separator: ",")), .text(current.headline),
                    ])
            }
            state.remember(
                HistoryTimeline.statusEntry(
                    RecordedStatus(
                        date: date, status: announced.status, severity: announced.severity, reason: announced.reason,
                        headline: announced.headline),
                    after: state.status.flatMap(Self.recorded)))
            if state.status?.status != current.status || state.since == nil {
                if state.status != nil { state.recentChanges.append(date) }
                state.since = date
            }
            state.status = current
        }
        state.recentChanges.removeAll { date.timeIntervalSince($0) > 86_400 }
        if writes, undo.hosts[report.config.identityKey] == nil {
            undo.hosts[report.config.identityKey] = .some(hosts[report.config.identityKey])
        }
        if writes { hosts[report.config.identityKey] = state }

        let renewal = Self.renewal(leafIssues: state.leafIssues, chain: state.chain, catalogue: catalogue, now: date)
        var history = HostHistory(
            statusSince: state.since, changesLast24Hours: state.recentChanges.count, renewal: renewal,
            latestChainChange: state.latestChange, recent: state.recent,
            previousStatus: recordedBefore.flatMap { HostStatus(rawValue: $0.status) },
            previousSeverity: recordedBefore.flatMap { HostSeverity(rawValue: $0.severity) })
        history.probeChainsSince = state.probeChains.mapValues(\.since)
        history.clientReports = clientReports
        return report.with(history: history, now: date)
    }

    /// The state's latest status as the timeline's previous entry.
    private static func recorded(_ status: (status: String, severity: String, headline: String?)) -> RecordedStatus? {
        guard let host = HostStatus(rawValue: status.status), let severity = HostSeverity(rawValue: status.severity) else { return nil }
        return RecordedStatus(
            date: Date(timeIntervalSince1970: 0), status: host, severity: severity, reason: "",
            headline: status.headline.flatMap(HostHeadline.init(rawValue:)))
    }

    /// Each probe of a host of several: a row when its chain changed, and
    /// the change in the host's recent timeline, named by the probe. An
    /// unchanged chain costs no query.
    private func recordProbeChains(of report: HostReport, state: inout HostState, date: Date) throws {
        let seconds = Int64(date.timeIntervalSince1970)
        for verdict in report.variants where verdict.error == nil {
            guard let chain = ObservedChain(levels: verdict.levels) else { continue }
            let probe = verdict.variant.label.isEmpty ? "(the name)" : verdict.variant.label
            let digests = chain.levels.map(\.certSHA256)
            let known = state.probeChains[probe]
            if known?.digests == digests { continue }
            let chainID = try storeChain(chain, hostID: state.id, seconds: seconds)
            let unchanged = known?.id == chainID
            state.probeChains[probe] = (chainID, digests, unchanged ? known?.since ?? date : date)
            guard !unchanged else { continue }
            try connection.query(
                "INSERT INTO probe_chain_change(host_id, probe, chain_id, at) VALUES (?1, ?2, ?3, ?4)",
                [.integer(state.id), .text(probe), .integer(chainID), .integer(seconds)])
            let previous = try known.flatMap { try self.chain(id: $0.id)?.chain }
            let text = previous.map { HistoryTimeline.describeChange(from: $0, to: chain).joined(separator: "; ") }
            state.remember(
                TimelineEntry(date: date, kind: .chain, text: "\(probe): " + (text ?? HistoryTimeline.firstSeen(chain))))
        }
    }
}
