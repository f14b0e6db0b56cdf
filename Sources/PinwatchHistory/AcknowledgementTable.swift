import Foundation
import PinwatchCore
import PinwatchSystem

/// The dashboard's acknowledgements in the history store, read and written
/// through a connection of their own: `serve` and `check` read them while
/// another pinwatch holds the store, and the dashboard writes them from its
/// own queue while its poller records on another.
package enum AcknowledgementTable {
    /// More rows than any fleet has hosts is a damaged or hostile file.
    static let rowLimit = 100_000
    /// As `silence:`'s reason: one line on a table row.
    package static let reasonCharacters = 200
    /// A login name, with room to spare.
    static let byCharacters = 64

    /// The file `setting` (or `override`) names; nil with history off.
    package static func path(
        _ setting: StateSetting, override: String?, environment: [String: String] = ProcessEnvironment.current
    ) -> String? {
        switch override.map({ text in StateSetting.parse(text) { $0 } }) ?? setting {
        case .off: return nil
        case .automatic: return HistoryStore.defaultPath(environment: environment)
        case .file(let path): return path
        }
    }

    /// Every acknowledgement stored; none when the file or its table does
    /// not exist yet (nothing was ever acknowledged there).
    package static func read(path: String) throws(HistoryError) -> [Acknowledgement] {
        guard path != HistoryStore.inMemoryPath, FileManager.default.fileExists(atPath: path) else { return [] }
        do {
            let connection = try SQLiteConnection(path: path, readOnly: true)
            var hasTable = false
            try connection.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'acknowledgement'") { _ in hasTable = true }
            guard hasTable else { return [] }
            var found: [Acknowledgement] = []
            try connection.query(
                "SELECT identity, until, reason, by, at, severity, headline FROM acknowledgement LIMIT ?1", [.integer(Int64(rowLimit))]
            ) { row in
                guard let severity = HostSeverity(rawValue: row.text(5)), let headline = HostHeadline(rawValue: row.text(6)) else { return }
                found.append(
                    Acknowledgement(
                        hostIdentity: row.text(0), until: Date(timeIntervalSince1970: Double(row.integer(1))),
                        reason: String(row.text(2).prefix(reasonCharacters)),
                        by: row.isNull(3) ? nil : String(row.text(3).prefix(byCharacters)),
                        at: Date(timeIntervalSince1970: Double(row.integer(4))), source: .dashboard,
                        state: AcknowledgedState(severity: severity, headline: headline)))
            }
            return found
        } catch {
            throw HistoryError(path, "cannot read acknowledgements (\(error))")
        }
    }

    /// Stores `acknowledgement` in place of any earlier one of its host.
    package static func store(_ acknowledgement: Acknowledgement, path: String) throws(HistoryError) {
        guard let state = acknowledgement.state else { return }
        let values: [SQLiteValue] = [
            .text(acknowledgement.hostIdentity), .integer(Int64(acknowledgement.until.timeIntervalSince1970)),
            .text(String(acknowledgement.reason.prefix(reasonCharacters))), acknowledgement.by.map { .text($0) } ?? .null,
            .integer(Int64((acknowledgement.at ?? Date()).timeIntervalSince1970)), .text(state.severity.rawValue),
            .text(state.headline.rawValue),
        ]
        try write(path) {
            try $0.query(
                "INSERT OR REPLACE INTO acknowledgement(identity, until, reason, by, at, severity, headline) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                values)
        }
    }

    /// Removes the acknowledgement of the host `identity` (`A`, or one spent).
    package static func remove(hostIdentity identity: String, path: String) throws(HistoryError) {
        try write(path) { try $0.query("DELETE FROM acknowledgement WHERE identity = ?1", [.text(identity)]) }
    }

    private static func write(_ path: String, _ body: (SQLiteConnection) throws -> Void) throws(HistoryError) {
        do {
            let connection = try SQLiteConnection(path: path, readOnly: false)
            try connection.transaction { try body(connection) }
        } catch {
            throw HistoryError(path, "cannot store the acknowledgement (\(error))")
        }
    }
}
