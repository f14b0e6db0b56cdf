import Foundation
import PinwatchCore
import PinwatchSystem

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
    private(set) var fileVersion: Int32 = HistoryStore.schemaVersion
    private let lock: StateLock?
    /// A writer's; a reader reads each host's state afresh at each
    /// `record`, so that it follows what the writer records.
    let writes: Bool
    var hosts: [String: HostState] = [:]
    var certificateIDs: [[UInt8]: Int64] = [:]
    var nameIDs: [String: Int64] = [:]
    /// What the running transaction changed in the three above, to put
    /// back when it rolls back.
    var undo = Undo()
    let healthLock = NSLock()
    var health = HistoryWriteHealth()

    struct Undo {
        /// Each host's state before the transaction (nil: it had none).
        var hosts: [String: HostState?] = [:]
        var certificates: [[UInt8]] = []
        var names: [String] = []
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

    static func describe(_ error: SQLiteError) -> String {
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
}
