import Foundation
import PinwatchCore

/// What `ct:` keeps in the history store at `path` between runs: each
/// log's verified position and the certificates logged for each host
/// (`CTLogPositionTable`, `CTLoggedTable`). The store must have been
/// opened (and so migrated) before the first save.
package final class CTStateFile: CTStateStore {
    package let path: String
    /// False for a store another pinwatch holds: it is read, and this
    /// run's steps are not saved (the holder's own steps save theirs).
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

    package func loadLogged(now: Date) throws -> [String: [CTLoggedCertificate]] { try CTLoggedTable.read(path: path, now: now) }

    package func saveLogged(_ logged: [String: [CTLoggedCertificate]], now: Date) throws {
        guard writable else { return }
        try CTLoggedTable.store(logged, path: path, now: now)
    }
}

extension HistoryStore {
    /// Where `ct:` is kept between runs; nil for a store in memory.
    package var ctState: CTStateFile? {
        path == Self.inMemoryPath ? nil : CTStateFile(path: path, writable: writes)
    }
}
