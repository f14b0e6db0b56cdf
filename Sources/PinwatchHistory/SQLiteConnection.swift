import CSQLite
import Foundation

/// An SQLite failure: the library's own message and its primary code.
struct SQLiteError: Error, CustomStringConvertible {
    var code: Int32
    var message: String

    var description: String { message }

    /// The file is not a database at all, or its pages are damaged.
    var isDamage: Bool { code == SQLITE_NOTADB || code == SQLITE_CORRUPT }

    /// A file or its WAL index could not be opened, or not for writing.
    var isCannotOpenOrWrite: Bool { code == SQLITE_CANTOPEN || code == SQLITE_READONLY }

    /// Rows that contradict each other: damage SQLite itself cannot see.
    static func damage(_ message: String) -> SQLiteError {
        SQLiteError(code: SQLITE_CORRUPT, message: message)
    }
}

/// One connection, used from one thread at a time (the store's callers
/// serialise). A thin layer: statements, bindings, rows, transactions.
final class SQLiteConnection {
    private var handle: OpaquePointer?
    private var cache: [String: OpaquePointer] = [:]

    /// `immutable`: read a file nothing can change (a read-only mount),
    /// without the WAL index SQLite would otherwise have to create.
    init(path: String, readOnly: Bool, immutable: Bool = false) throws {
        var flags = readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        var name = path
        if immutable {
            flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
            name = "file:" + Self.uriEscaped(path) + "?immutable=1"
        } else if !readOnly && path != ":memory:" {
            Self.createPrivately(path)
        }
        let status = sqlite3_open_v2(name, &handle, flags | SQLITE_OPEN_NOMUTEX, nil)
        guard status == SQLITE_OK else {
            let error = SQLiteError(code: status & 0xFF, message: handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open")
            sqlite3_close_v2(handle)
            handle = nil
            throw error
        }
        // Another process mid-transaction (a `history` reader) is waited
        // for briefly instead of failing at once.
        sqlite3_busy_timeout(handle, 2000)
        // SQLite's default page cache (2 MiB a connection) fills as the
        // history file grows, so a long-running `watch` or `serve` held
        // more every hour until it was full. The pages a cycle touches fit
        // in far less, and the kernel's page cache keeps the file's pages
        // anyway: a small bound costs reads from memory, not from disk.
        _ = sqlite3_exec(handle, "PRAGMA cache_size=-\(Self.pageCacheKiB)", nil, nil, nil)
    }

    /// The page cache's bound, in KiB.
    static let pageCacheKiB = 512

    /// What this connection's page cache holds now, in bytes.
    var pageCacheBytes: Int {
        var current: Int32 = 0
        var highest: Int32 = 0
        _ = sqlite3_db_status(handle, SQLITE_DBSTATUS_CACHE_USED, &current, &highest, 0)
        return Int(current)
    }

    /// Makes a missing database file empty and 0600 (an empty file is an
    /// empty database to SQLite), whatever the umask: it holds hosts,
    /// chains and who acknowledged what, and SQLite gives its -wal and
    /// -shm files the database's own mode. A file that exists keeps its
    /// mode; one that cannot be made is left to SQLite to report.
    private static func createPrivately(_ path: String) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { return }
        // The umask can only take bits away; fchmod puts back none beyond 0600.
        _ = fchmod(descriptor, 0o600)
        close(descriptor)
    }

    /// A path as a URI filename's path: `?`, `#` and `%` (and anything
    /// else unusual) percent-encoded.
    static func uriEscaped(_ path: String) -> String {
        var out = ""
        for byte in path.utf8 {
            let scalar = Unicode.Scalar(byte)
            if byte < 0x80, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "/-._~".unicodeScalars.contains(scalar) {
                out.unicodeScalars.append(scalar)
            } else {
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }

    deinit {
        // Nil when init failed, perhaps before the library could be loaded.
        guard let handle else { return }
        for statement in cache.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(handle)
    }

    private func failure(_ status: Int32) -> SQLiteError {
        SQLiteError(code: status & 0xFF, message: String(cString: sqlite3_errmsg(handle)))
    }

    func execute(_ sql: String) throws {
        let status = sqlite3_exec(handle, sql, nil, nil, nil)
        guard status == SQLITE_OK else { throw failure(status) }
    }

    /// Runs `sql` with `values` bound in order, calling `row` per result row.
    func query(_ sql: String, _ values: [SQLiteValue] = [], row: (SQLiteRow) throws -> Void = { _ in }) throws {
        let statement = try prepared(sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch value {
            case .null: status = sqlite3_bind_null(statement, index)
            case .integer(let number): status = sqlite3_bind_int64(statement, index, number)
            case .text(let text): status = sqlite3_bind_text(statement, index, text, -1, transientDestructor)
            case .blob(let bytes):
                status = bytes.withUnsafeBytes { buffer in
                    sqlite3_bind_blob(statement, index, buffer.baseAddress, Int32(buffer.count), transientDestructor)
                }
            }
            guard status == SQLITE_OK else { throw failure(status) }
        }
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { return }
            guard status == SQLITE_ROW else { throw failure(status) }
            try row(SQLiteRow(statement: statement!))
        }
    }

    var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Everything in `body` commits together or not at all; a crash at any
    /// moment leaves the last committed state (WAL).
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    private func prepared(_ sql: String) throws -> OpaquePointer? {
        if let statement = cache[sql] { return statement }
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard status == SQLITE_OK else { throw failure(status) }
        cache[sql] = statement
        return statement
    }
}

/// SQLite copies bound text and blobs (SQLITE_TRANSIENT), which Swift
/// cannot spell as the C macro's cast of -1.
private let transientDestructor = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

enum SQLiteValue {
    case null
    case integer(Int64)
    case text(String)
    case blob([UInt8])
}

struct SQLiteRow {
    let statement: OpaquePointer

    func integer(_ column: Int32) -> Int64 { sqlite3_column_int64(statement, column) }

    func text(_ column: Int32) -> String {
        guard let pointer = sqlite3_column_text(statement, column) else { return "" }
        return String(cString: pointer)
    }

    func blob(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(statement, column))
        guard count > 0, let pointer = sqlite3_column_blob(statement, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(statement, column) == SQLITE_NULL }
}
