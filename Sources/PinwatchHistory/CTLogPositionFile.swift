import Foundation
import PinwatchCore

/// The positions of the history store at `path`, for a command that
/// follows Certificate Transparency logs (`CTFollowing`). The store must
/// have been opened (and so migrated) before the first save.
package final class CTLogPositionFile: CTPositionStore {
    package let path: String
    /// False for a store another pinwatch holds: its positions are read,
    /// and this run's are not saved (the holder's own steps save theirs).
    package let writable: Bool

    package init(path: String, writable: Bool = true) {
        self.path = path
        self.writable = writable
    }

    package func loadPositions() throws -> [CTLogPositionRecord] { try CTLogPositionTable.read(path: path) }

    package func savePositions(_ records: [CTLogPositionRecord]) throws {
        guard writable else { return }
        try CTLogPositionTable.store(records, path: path)
    }
}

extension HistoryStore {
    /// Where `ct:`'s logs are kept between runs; nil for a store in memory.
    package var ctPositions: CTLogPositionFile? {
        path == Self.inMemoryPath ? nil : CTLogPositionFile(path: path, writable: writes)
    }
}
