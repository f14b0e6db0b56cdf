import Foundation
import PinwatchCore
import PinwatchSystem

/// Why the state file cannot be used; every message names the path and
/// the way out.
package struct HistoryError: Error, CustomStringConvertible {
    package var description: String
    /// Another pinwatch writes to this file now: one-shot commands go on
    /// without recording instead of failing.
    package var isInUse = false
    /// The place cannot hold a state file (no folder can be made, nothing
    /// can be written); unlike a damaged or foreign file, nothing is at risk.
    package var isUnavailable = false
    /// With `isInUse`: the PID the lock file names, when it names one.
    package var holderPID: Int32?

    init(_ path: String, _ problem: String, inUse: Bool = false, unavailable: Bool = false, holderPID: Int32? = nil) {
        description = "\(path): \(problem); set `state: off` (or --state off) to run without history"
        isInUse = inUse
        isUnavailable = unavailable
        self.holderPID = holderPID
    }
}

/// The embedded history (SQLite, WAL, one writer): a row per change of
/// chain or status per host, plus when each chain was last seen. A cycle
/// of unchanged hosts costs one transaction of `last_seen` updates.
///
/// Not thread-safe: the poller records on one serial queue, and commands
/// read from their own thread.
package final class HistoryStore: HostHistoryRecorder {
    package enum Mode: Sendable {
        /// `watch`, `serve`, `snapshot`, `check`: records, holds the lock.
        case writer
        /// `history`, and `snapshot`, `check` and `watch` while another
        /// pinwatch holds the store: reads while a writer runs. `record`
        /// gives each report its history as the file has it, with the
        /// result applied in memory only: nothing is written.
        case reader
    }

    /// Opened as a `reader`: `record` writes nothing.
    package var isReadOnly: Bool { !writes }

    package static let schemaVersion: Int32 = 6
    /// `PRAGMA application_id`: "pwat". A SQLite file without it is not ours.
    static let applicationID: Int32 = 0x7077_6174
    package static let inMemoryPath = ":memory:"

    /// The store `setting` (or `override`, a path relative to the working
    /// directory, or `off`) names; nil when history is off.
    package static func open(
        _ setting: StateSetting, override: String?, historyDays: Int, mode: Mode = .writer,
        environment: [String: String] = ProcessEnvironment.current, catalogue: Catalogue = .empty
    ) throws(HistoryError) -> HistoryStore? {
        let chosen = override.map { text in StateSetting.parse(text) { $0 } } ?? setting
        let store: HistoryStore
        switch chosen {
        case .off: return nil
        case .automatic: store = try HistoryStore(path: defaultPath(environment: environment), mode: mode, historyDays: historyDays)
        case .file(let path): store = try HistoryStore(path: path, mode: mode, historyDays: historyDays)
        }
        store.catalogue = catalogue
        return store
    }

    package let path: String
    /// The CA families the configuration knows (`Config.catalogue`): their
    /// lifetime schedules bring renewal estimates forward.
    package var catalogue: Catalogue = .empty
    private(set) var connection: SQLiteConnection
    /// The file's schema: a reader does not migrate, so it may read an older one.
    private var fileVersion: Int32 = HistoryStore.schemaVersion
    private let lock: StateLock?
    /// A writer's; a reader reads each host's state afresh at each
    /// `record`, so that it follows what the writer records.
    private let writes: Bool
    private var hosts: [String: HostState] = [:]
    private var certificateIDs: [[UInt8]: Int64] = [:]
    private var nameIDs: [String: Int64] = [:]
    /// What the running transaction changed in the three above, to put
    /// back when it rolls back.
    private var undo = Undo()
    private let healthLock = NSLock()
    private var health = HistoryWriteHealth()

    struct Undo {
        /// Each host's state before the transaction (nil: it had none).
        var hosts: [String: HostState?] = [:]
        var certificates: [[UInt8]] = []
        var names: [String] = []
    }

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

    /// `$XDG_STATE_HOME/pinwatch/state.sqlite`, else `~/.local/state/…`.
    package static func defaultPath(environment: [String: String] = ProcessEnvironment.current) -> String {
        if let base = environment["XDG_STATE_HOME"], base.hasPrefix("/") {
            return "\(base)/pinwatch/state.sqlite"
        }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return "\(home)/.local/state/pinwatch/state.sqlite"
    }

    /// Opens (creating when missing) and prunes entries older than
    /// `historyDays`. Refuses, without touching it, a file that is not a
    /// pinwatch state file, is damaged, or comes from a newer pinwatch.
    package init(path: String, mode: Mode, historyDays: Int = 400, now: Date = Date()) throws(HistoryError) {
        self.path = path
        writes = mode == .writer
        let inMemory = path == Self.inMemoryPath
        if !inMemory {
            try Self.checkExistingFile(path, mode: mode)
        }
        lock = mode == .writer && !inMemory ? try StateLock(path: path) : nil
        do {
            connection = try SQLiteConnection(path: path, readOnly: mode == .reader)
        } catch {
            let failure = error as? SQLiteError ?? SQLiteError(code: 1, message: "\(error)")
            // SQLITE_CANTOPEN: a folder that cannot be written, mostly.
            throw HistoryError(
                path, failure.code == 14 ? "cannot create the state file (\(failure.message))" : Self.describe(failure),
                unavailable: failure.code == 14 || failure.code == 8)
        }
        do {
            if mode == .reader { try readAnywhere() }
            let (application, version) = try readHeader()
            let hasTables = try tableCount() > 0
            if hasTables && application != Self.applicationID {
                throw HistoryError(path, "is an SQLite database of another program; it was left untouched")
            }
            if version > Self.schemaVersion {
                throw HistoryError(
                    path, "was written by a newer pinwatch (state schema \(version); this one knows \(Self.schemaVersion))")
            }
            if hasTables { try verifyIntact() }
            fileVersion = version
            guard mode == .writer else { return }
            if !inMemory { try connection.execute("PRAGMA journal_mode=WAL") }
            try connection.execute("PRAGMA synchronous=NORMAL")
            if version < Self.schemaVersion {
                try migrate(from: version)
                fileVersion = Self.schemaVersion
            }
            try prune(olderThan: now.addingTimeInterval(-Double(max(1, historyDays)) * 86_400))
        } catch let error as HistoryError {
            throw error
        } catch let error as SQLiteError {
            throw HistoryError(path, Self.describe(error))
        } catch {
            throw HistoryError(path, "\(error)")
        }
    }

    /// A WAL file is read through its index (`-shm`), which SQLite creates
    /// beside it: impossible in a read-only folder or mount once the writer
    /// has gone. Nothing can change such a file, so it is read as immutable.
    private func readAnywhere() throws {
        do {
            try connection.query("PRAGMA schema_version")
        } catch let error as SQLiteError where error.isCannotOpenOrWrite {
            connection = try SQLiteConnection(path: path, readOnly: true, immutable: true)
        }
    }

    /// Readers and writers check a file alike, so `history` never shows
    /// what `serve` refuses. quick_check reads every page once, as the
    /// writer's pruning does anyway (see DECISIONS).
    private func verifyIntact() throws {
        var verdict: [String] = []
        try connection.query("PRAGMA quick_check(1)") { verdict.append($0.text(0)) }
        guard verdict == ["ok"] else {
            let finding = (verdict.first ?? "quick_check said nothing").replacingOccurrences(of: "*** in database main ***", with: "")
            throw SQLiteError.damage(finding.split(whereSeparator: \.isNewline).joined(separator: " "))
        }
    }

    private static func describe(_ error: SQLiteError) -> String {
        if error.isDamage { return "is damaged or not an SQLite database (\(error.message)); it was left untouched" }
        if error.code == 8 { return "cannot be written (read-only file or folder)" }
        return error.message
    }

    /// A file that exists must start like an SQLite database; an empty one
    /// is fine (a crash between create and first write).
    private static func checkExistingFile(_ path: String, mode: Mode) throws(HistoryError) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if mode == .reader { throw HistoryError(path, "no state file (nothing has been recorded yet)") }
            return
        }
        guard info.st_mode & S_IFMT == S_IFREG else { throw HistoryError(path, "is not a regular file") }
        guard info.st_size > 0 else { return }
        guard let handle = FileHandle(forReadingAtPath: path) else { throw HistoryError(path, "cannot be read") }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 16)) ?? Data()
        if header != Data("SQLite format 3\0".utf8) {
            throw HistoryError(path, "is not a pinwatch state file (not an SQLite database); it was left untouched")
        }
    }

    private func readHeader() throws -> (application: Int32, version: Int32) {
        var application: Int32 = 0
        var version: Int32 = 0
        try connection.query("PRAGMA application_id") { application = Int32(truncatingIfNeeded: $0.integer(0)) }
        try connection.query("PRAGMA user_version") { version = Int32(truncatingIfNeeded: $0.integer(0)) }
        return (application, version)
    }

    private func tableCount() throws -> Int {
        var count = 0
        try connection.query("SELECT count(*) FROM sqlite_master") { count = Int($0.integer(0)) }
        return count
    }

    // MARK: Schema

    /// Each entry takes the schema from version N to N+1, in one transaction.
    private static let migrations: [String] = [
        """
        CREATE TABLE host(
            id INTEGER PRIMARY KEY, identity TEXT NOT NULL UNIQUE,
            host TEXT NOT NULL, port INTEGER NOT NULL, sni TEXT NOT NULL, connect TEXT);
        CREATE TABLE name(id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE);
        CREATE TABLE certificate(
            id INTEGER PRIMARY KEY, digest_key INTEGER NOT NULL, digest BLOB NOT NULL, spki BLOB NOT NULL,
            subject_id INTEGER NOT NULL REFERENCES name(id), issuer_id INTEGER NOT NULL REFERENCES name(id),
            not_before INTEGER NOT NULL, not_after INTEGER NOT NULL);
        CREATE INDEX certificate_by_digest ON certificate(digest_key);
        CREATE TABLE chain(
            id INTEGER PRIMARY KEY, host_id INTEGER NOT NULL REFERENCES host(id),
            levels TEXT NOT NULL, first_seen INTEGER NOT NULL, last_seen INTEGER NOT NULL);
        CREATE INDEX chain_by_host ON chain(host_id, first_seen);
        CREATE TABLE status_change(
            id INTEGER PRIMARY KEY, host_id INTEGER NOT NULL REFERENCES host(id), at INTEGER NOT NULL,
            status TEXT NOT NULL, severity TEXT NOT NULL, reason TEXT NOT NULL, alerts TEXT NOT NULL);
        CREATE INDEX status_by_host ON status_change(host_id, at);
        """,
        // Every change of chain, a return to one seen before included;
        // until now only each chain's first sighting was kept.
        """
        CREATE TABLE chain_change(
            id INTEGER PRIMARY KEY, host_id INTEGER NOT NULL REFERENCES host(id),
            chain_id INTEGER NOT NULL REFERENCES chain(id), at INTEGER NOT NULL);
        CREATE INDEX chain_change_by_host ON chain_change(host_id, at);
        INSERT INTO chain_change(host_id, chain_id, at) SELECT host_id, id, first_seen FROM chain ORDER BY first_seen, id;
        """,
        // The dashboard's acknowledgements (`AcknowledgementTable`), one per
        // host identity, with the state each acknowledged.
        """
        CREATE TABLE acknowledgement(
            identity TEXT PRIMARY KEY, until INTEGER NOT NULL, reason TEXT NOT NULL, by TEXT, at INTEGER NOT NULL,
            severity TEXT NOT NULL, headline TEXT NOT NULL);
        """,
        // Each change of chain of each probe of a host of several
        // (`addresses: all`, `key_types:`), named by the probe: a rolling
        // rotation, address by address.
        """
        CREATE TABLE probe_chain_change(
            id INTEGER PRIMARY KEY, host_id INTEGER NOT NULL REFERENCES host(id), probe TEXT NOT NULL,
            chain_id INTEGER NOT NULL REFERENCES chain(id), at INTEGER NOT NULL);
        CREATE INDEX probe_chain_change_by_host ON probe_chain_change(host_id, at);
        """,
        // Each status row's headline, the word the dashboard showed
        // (`expiring` for an `ok` host in trouble), for the timeline's
        // words; older rows keep NULL and are told by their status.
        """
        ALTER TABLE status_change ADD COLUMN headline TEXT;
        """,
        // Each followed Certificate Transparency log's verified tree
        // (`CTLogPositionTable`): the next run resumes there instead of
        // reading the log's history.
        """
        CREATE TABLE ct_log_position(
            log_id BLOB PRIMARY KEY, tree_size INTEGER NOT NULL, root BLOB NOT NULL, timestamp INTEGER NOT NULL, range BLOB);
        """,
    ]

    private func migrate(from version: Int32) throws {
        try connection.transaction {
            for step in Int(version)..<Int(Self.schemaVersion) {
                try connection.execute(Self.migrations[step])
            }
            try connection.execute("PRAGMA application_id=\(Self.applicationID)")
            try connection.execute("PRAGMA user_version=\(Self.schemaVersion)")
        }
    }

    /// Retention (`history_days`): chains last seen and status changes
    /// before `cutoff` go, but never a host's latest of either.
    private func prune(olderThan cutoff: Date) throws {
        let seconds = Int64(cutoff.timeIntervalSince1970)
        try connection.transaction {
            try connection.query(
                """
                DELETE FROM chain WHERE last_seen < ?1
                AND id NOT IN (SELECT max(id) FROM chain GROUP BY host_id)
                """, [.integer(seconds)])
            try connection.query(
                """
                DELETE FROM status_change WHERE at < ?1
                AND id NOT IN (SELECT max(id) FROM status_change GROUP BY host_id)
                """, [.integer(seconds)])
            try connection.query(
                """
                DELETE FROM chain_change WHERE (at < ?1 AND id NOT IN (SELECT max(id) FROM chain_change GROUP BY host_id))
                OR chain_id NOT IN (SELECT id FROM chain)
                """, [.integer(seconds)])
            try connection.query(
                """
                DELETE FROM probe_chain_change WHERE chain_id NOT IN (SELECT id FROM chain)
                OR (at < ?1 AND id NOT IN (SELECT max(id) FROM probe_chain_change GROUP BY host_id, probe))
                """, [.integer(seconds)])
            try connection.query("DELETE FROM certificate WHERE not_after < ?1", [.integer(seconds)])
        }
    }

    // MARK: Recording

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
                let annotated = try reports.map { try record($0, at: date, unchangedChains: &unchanged) }
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

    private func record(_ report: HostReport, at date: Date, unchangedChains: inout [Int64]) throws -> HostReport {
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
        let announced = report.with(history: HostHistory(latestChainChange: state.latestChange), now: date)
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
        return report.with(history: history, now: date)
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

    /// A chain seen before on this host (a rollback) gets its row back;
    /// otherwise a new row, with any new certificates.
    private func storeChain(_ chain: ObservedChain, hostID: Int64, seconds: Int64) throws -> Int64 {
        var parts: [String] = []
        for level in chain.levels {
            parts.append("\(Self.roleLetter[level.role]!)\(try certificateID(level))")
        }
        let levels = parts.joined(separator: " ")
        var existing: Int64?
        try connection.query("SELECT id FROM chain WHERE host_id = ?1 AND levels = ?2", [.integer(hostID), .text(levels)]) {
            existing = $0.integer(0)
        }
        if let existing {
            try connection.query("UPDATE chain SET last_seen = ?1 WHERE id = ?2", [.integer(seconds), .integer(existing)])
            return existing
        }
        try connection.query(
            "INSERT INTO chain(host_id, levels, first_seen, last_seen) VALUES (?1, ?2, ?3, ?3)",
            [.integer(hostID), .text(levels), .integer(seconds)])
        return connection.lastInsertedRowID
    }

    /// Levels are stored as `l12 i3 r1`: role letter and certificate row.
    static let roleLetter: [ChainRole: Character] = [.leaf: "l", .intermediate: "i", .root: "r"]

    /// A digest's first 8 bytes: the index holds these instead of the
    /// whole 32, the row keeps the whole digest to compare.
    static func digestKey(_ digest: [UInt8]) -> Int64 {
        digest.prefix(8).reduce(0) { ($0 << 8) | Int64($1) }
    }

    private func certificateID(_ certificate: ObservedCertificate) throws -> Int64 {
        if let id = certificateIDs[certificate.certSHA256] { return id }
        let key = Self.digestKey(certificate.certSHA256)
        var id: Int64?
        try connection.query("SELECT id, digest FROM certificate WHERE digest_key = ?1", [.integer(key)]) { row in
            if row.blob(1) == certificate.certSHA256 { id = row.integer(0) }
        }
        if id == nil {
            try connection.query(
                """
                INSERT INTO certificate(digest_key, digest, spki, subject_id, issuer_id, not_before, not_after)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                """,
                [
                    .integer(key), .blob(certificate.certSHA256), .blob(certificate.spkiSHA256),
                    .integer(try nameID(certificate.subject)), .integer(try nameID(certificate.issuer)),
                    .integer(Int64(certificate.notBefore.timeIntervalSince1970)),
                    .integer(Int64(certificate.notAfter.timeIntervalSince1970)),
                ])
            id = connection.lastInsertedRowID
        }
        certificateIDs[certificate.certSHA256] = id
        undo.certificates.append(certificate.certSHA256)
        return id!
    }

    /// Subjects and issuers repeat at every renewal: each is stored once.
    private func nameID(_ text: String) throws -> Int64 {
        if let id = nameIDs[text] { return id }
        var id: Int64?
        try connection.query("SELECT id FROM name WHERE text = ?1", [.text(text)]) { id = $0.integer(0) }
        if id == nil {
            try connection.query("INSERT INTO name(text) VALUES (?1)", [.text(text)])
            id = connection.lastInsertedRowID
        }
        nameIDs[text] = id
        undo.names.append(text)
        return id!
    }

    /// The host's row and what the store remembers of it, read once per run.
    private func hostState(for host: HostConfig, at date: Date) throws -> HostState {
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

    // MARK: Reading

    /// When each distinct leaf was issued, by its digest.
    static func leafIssues(in chains: [StoredChain]) -> [[UInt8]: Date] {
        var issues: [[UInt8]: Date] = [:]
        for entry in chains {
            if let leaf = entry.chain.leaf { issues[leaf.certSHA256] = leaf.notBefore }
        }
        return issues
    }

    /// The forecast from the latest dozen leaves: older ones say little
    /// about the cadence now. The chain's CA, as the catalogue knows it,
    /// decides which lifetime rules bind its next leaf.
    static func renewal(leafIssues: [[UInt8]: Date], chain: ObservedChain?, catalogue: Catalogue, now: Date) -> RenewalEstimate? {
        guard let chain, let leaf = chain.leaf else { return nil }
        return RenewalForecast.estimate(
            issued: Array(leafIssues.values.sorted().suffix(13)), notBefore: leaf.notBefore, notAfter: leaf.notAfter, now: now,
            rules: LifetimeRules.rules(forCAKeys: chain.caKeys, catalogue: catalogue))
    }

    struct StoredChain {
        var id: Int64
        var firstSeen: Date
        var lastSeen: Date
        var chain: ObservedChain
    }

    /// The host's chains, oldest first (the newest `limit` when given).
    func chains(hostID: Int64, limit: Int? = nil) throws -> [StoredChain] {
        var rows: [(id: Int64, levels: String, first: Int64, last: Int64)] = []
        try connection.query(
            "SELECT id, levels, first_seen, last_seen FROM chain WHERE host_id = ?1 ORDER BY first_seen DESC, id DESC LIMIT ?2",
            [.integer(hostID), .integer(Int64(limit ?? Int(Int32.max)))]
        ) { rows.append(($0.integer(0), $0.text(1), $0.integer(2), $0.integer(3))) }
        return try rows.reversed().map(storedChain)
    }

    func chain(id: Int64) throws -> StoredChain? {
        var row: (id: Int64, levels: String, first: Int64, last: Int64)?
        try connection.query("SELECT id, levels, first_seen, last_seen FROM chain WHERE id = ?1", [.integer(id)]) {
            row = ($0.integer(0), $0.text(1), $0.integer(2), $0.integer(3))
        }
        return try row.map(storedChain)
    }

    struct ChainChange {
        var at: Int64
        var chainID: Int64
        /// The probe whose chain changed (`127.0.0.2`, `rsa`); nil for the host's own.
        var probe: String? = nil
    }

    /// Every chain change of each probe of the host, oldest first; none in
    /// a file from before probes were recorded (read without migrating).
    func probeChainChanges(hostID: Int64) throws -> [ChainChange] {
        guard fileVersion >= 3 else { return [] }
        var changes: [ChainChange] = []
        try connection.query(
            "SELECT at, chain_id, probe FROM probe_chain_change WHERE host_id = ?1 ORDER BY at, id", [.integer(hostID)]
        ) { changes.append(ChainChange(at: $0.integer(0), chainID: $0.integer(1), probe: $0.text(2))) }
        return changes
    }

    /// Every chain change of the host, oldest first. A schema 1 file (read
    /// without migrating) kept only each chain's first sighting.
    func chainChanges(hostID: Int64) throws -> [ChainChange] {
        var changes: [ChainChange] = []
        let sql =
            fileVersion >= 2
            ? "SELECT at, chain_id FROM chain_change WHERE host_id = ?1 ORDER BY at, id"
            : "SELECT first_seen, id FROM chain WHERE host_id = ?1 ORDER BY first_seen, id"
        try connection.query(sql, [.integer(hostID)]) { changes.append(ChainChange(at: $0.integer(0), chainID: $0.integer(1))) }
        return changes
    }

    private func storedChain(_ row: (id: Int64, levels: String, first: Int64, last: Int64)) throws -> StoredChain {
        var levels: [ObservedCertificate] = []
        for part in row.levels.split(separator: " ") {
            guard let letter = part.first, let role = Self.roleLetter.first(where: { $0.value == letter })?.key,
                let certificateID = Int64(part.dropFirst())
            else { continue }
            try connection.query(
                """
                SELECT digest, spki, subject.text, issuer.text, not_before, not_after FROM certificate
                JOIN name AS subject ON subject.id = subject_id JOIN name AS issuer ON issuer.id = issuer_id
                WHERE certificate.id = ?1
                """,
                [.integer(certificateID)]
            ) { certificate in
                levels.append(
                    ObservedCertificate(
                        role: role, spkiSHA256: certificate.blob(1), certSHA256: certificate.blob(0), subject: certificate.text(2),
                        issuer: certificate.text(3), notBefore: Date(timeIntervalSince1970: Double(certificate.integer(4))),
                        notAfter: Date(timeIntervalSince1970: Double(certificate.integer(5)))))
            }
        }
        return StoredChain(
            id: row.id, firstSeen: Date(timeIntervalSince1970: Double(row.first)),
            lastSeen: Date(timeIntervalSince1970: Double(row.last)), chain: ObservedChain(levels: levels))
    }

    func statuses(hostID: Int64, since: Date?) throws -> [RecordedStatus] {
        var statuses: [RecordedStatus] = []
        try connection.query(
            "SELECT at, status, severity, reason, \(headlineColumn) FROM status_change WHERE host_id = ?1 AND at >= ?2 ORDER BY at, id",
            [.integer(hostID), .integer(Int64(since?.timeIntervalSince1970 ?? 0))]
        ) { row in
            if let status = Self.recordedStatus(row) { statuses.append(status) }
        }
        return statuses
    }

    /// The headline column, or NULL in a file from before it (read without migrating).
    private var headlineColumn: String { fileVersion >= 5 ? "headline" : "NULL" }

    /// A `SELECT at, status, severity, reason, headline` row.
    private static func recordedStatus(_ row: SQLiteRow) -> RecordedStatus? {
        guard let status = HostStatus(rawValue: row.text(1)), let severity = HostSeverity(rawValue: row.text(2)) else { return nil }
        return RecordedStatus(
            date: Date(timeIntervalSince1970: Double(row.integer(0))), status: status, severity: severity, reason: row.text(3),
            headline: row.isNull(4) ? nil : HostHeadline(rawValue: row.text(4)))
    }

    /// The state's latest status as the timeline's previous entry.
    private static func recorded(_ status: (status: String, severity: String, headline: String?)) -> RecordedStatus? {
        guard let host = HostStatus(rawValue: status.status), let severity = HostSeverity(rawValue: status.severity) else { return nil }
        return RecordedStatus(
            date: Date(timeIntervalSince1970: 0), status: host, severity: severity, reason: "",
            headline: status.headline.flatMap(HostHeadline.init(rawValue:)))
    }

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
                let timeline = HostTimeline(
                    host: row.host, port: row.port, serverName: row.sni, connect: row.connect, entries: [], renewal: renewal,
                    firstSeen: chains.first?.firstSeen, lastSeen: chains.map(\.lastSeen).max())
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
    private func streamEntries(
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
