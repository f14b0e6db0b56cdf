import Foundation
import PinwatchCore

/// Each followed Certificate Transparency log's verified position in the
/// history store (migration step 7), read and written through a connection
/// of its own, as the acknowledgements are.
package enum CTLogPositionTable {
    /// More logs than any list holds is a damaged or hostile file.
    static let rowLimit = 10_000
    /// A compact range has at most one hash per bit of a 64-bit size.
    static let maximumRangeHashes = 64
    static let hashSize = 32

    /// Every position stored; none when the file or its table does not
    /// exist yet. A row that is not a position (wrong sizes) is skipped,
    /// and its log starts again at its size of the day.
    package static func read(path: String) throws(HistoryError) -> [CTLogPositionRecord] {
        guard path != HistoryStore.inMemoryPath, FileManager.default.fileExists(atPath: path) else { return [] }
        do {
            let connection = try SQLiteConnection(path: path, readOnly: true)
            var hasTable = false
            try connection.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'ct_log_position'") { _ in hasTable = true }
            guard hasTable else { return [] }
            var found: [CTLogPositionRecord] = []
            try connection.query(
                "SELECT log_id, tree_size, root, timestamp, range FROM ct_log_position LIMIT ?1", [.integer(Int64(rowLimit))]
            ) { row in
                let logID = row.blob(0)
                let root = row.blob(2)
                let size = row.integer(1)
                let timestamp = row.integer(3)
                guard logID.count == hashSize, root.count == hashSize, size >= 0, timestamp >= 0 else { return }
                var range: [[UInt8]]?
                if !row.isNull(4) {
                    let bytes = row.blob(4)
                    guard bytes.count % hashSize == 0, bytes.count / hashSize <= maximumRangeHashes else { return }
                    range = stride(from: 0, to: bytes.count, by: hashSize).map { Array(bytes[$0..<($0 + hashSize)]) }
                }
                found.append(
                    CTLogPositionRecord(
                        logID: logID, treeSize: UInt64(size), rootHash: root, timestamp: UInt64(timestamp), range: range))
            }
            return found
        } catch {
            throw HistoryError(path, "cannot read the Certificate Transparency positions (\(error))")
        }
    }

    /// Stores each position in place of its log's earlier one, in one transaction.
    package static func store(_ records: [CTLogPositionRecord], path: String) throws(HistoryError) {
        do {
            let connection = try SQLiteConnection(path: path, readOnly: false)
            try connection.transaction {
                for record in records {
                    guard record.treeSize <= UInt64(Int64.max), record.timestamp <= UInt64(Int64.max) else { continue }
                    try connection.query(
                        "INSERT OR REPLACE INTO ct_log_position(log_id, tree_size, root, timestamp, range) VALUES (?1, ?2, ?3, ?4, ?5)",
                        [
                            .blob(record.logID), .integer(Int64(record.treeSize)), .blob(record.rootHash),
                            .integer(Int64(record.timestamp)), record.range.map { .blob($0.flatMap { $0 }) } ?? .null,
                        ])
                }
            }
        } catch {
            throw HistoryError(path, "cannot store the Certificate Transparency positions (\(error))")
        }
    }
}
