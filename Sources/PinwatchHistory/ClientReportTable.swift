import Foundation
import PinwatchCore

/// Clients' pin-failure reports in the history store (migration step 6):
/// written by `serve`'s endpoint through a connection of its own, on its
/// own thread, while the poller records on its queue; read back with each
/// cycle's history (the `client_reports` alert) and by `history`.
package enum ClientReportTable {
    /// The newest rows kept whatever `history_days` says: a flood that
    /// passes the rate limit from many addresses cannot grow the file.
    package static let rowLimit = 10_000
    /// Rows read for one host's `history`.
    package static let shownPerHost = 20

    /// Stores `record` and drops the oldest rows past `rowLimit`.
    package static func store(_ record: ClientReportRecord, path: String) throws(HistoryError) {
        do {
            let connection = try SQLiteConnection(path: path, readOnly: false)
            try connection.transaction {
                try connection.query(
                    """
                    INSERT INTO client_report(host, port, at, client, format, app, reported_at, outcome, chain)
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
                    """,
                    [
                        .text(record.host), .integer(Int64(record.port)), .integer(Int64(record.receivedAt.timeIntervalSince1970)),
                        .text(record.client), .text(record.format), optional(record.app), optional(record.reportedAt),
                        optional(record.outcome), .text(record.chain.joined(separator: "\n")),
                    ])
                try connection.query(
                    "DELETE FROM client_report WHERE id <= (SELECT max(id) FROM client_report) - ?1", [.integer(Int64(rowLimit))])
            }
        } catch {
            throw HistoryError(path, "cannot store the client report (\(error))")
        }
    }

    /// Retention (`history_days`), with the rest of the store's.
    static func prune(_ connection: SQLiteConnection, olderThan seconds: Int64) throws {
        try connection.query("DELETE FROM client_report WHERE at < ?1", [.integer(seconds)])
    }

    /// Each host's reports received within `ClientReportFacts.window` of
    /// `now`, by `host:port`.
    static func recentFacts(_ connection: SQLiteConnection, now: Date) throws -> [String: ClientReportFacts] {
        let since = Int64(now.addingTimeInterval(-ClientReportFacts.window).timeIntervalSince1970)
        var found: [String: (count: Int, latest: ClientReportRecord, clients: Set<String>)] = [:]
        try connection.query("\(selectColumns) WHERE at >= ?1 ORDER BY id LIMIT ?2", [.integer(since), .integer(Int64(rowLimit))]) { row in
            let record = Self.record(row)
            let key = "\(record.host):\(record.port)"
            var entry = found[key] ?? (0, record, [])
            entry.count += 1
            entry.latest = record
            entry.clients.insert(record.client)
            found[key] = entry
        }
        return found.mapValues { ClientReportFacts(count: $0.count, latest: $0.latest, clients: $0.clients.sorted()) }
    }

    /// The latest `shownPerHost` reports of one host, oldest first.
    static func reports(_ connection: SQLiteConnection, host: String, port: Int) throws -> [ClientReportRecord] {
        var found: [ClientReportRecord] = []
        try connection.query(
            "\(selectColumns) WHERE host = ?1 AND port = ?2 ORDER BY id DESC LIMIT ?3",
            [.text(host), .integer(Int64(port)), .integer(Int64(shownPerHost))]
        ) { found.append(Self.record($0)) }
        return found.reversed()
    }

    private static let selectColumns = "SELECT host, port, at, client, format, app, reported_at, outcome, chain FROM client_report"

    private static func record(_ row: SQLiteRow) -> ClientReportRecord {
        ClientReportRecord(
            receivedAt: Date(timeIntervalSince1970: Double(row.integer(2))), host: row.text(0), port: Int(row.integer(1)),
            client: row.text(3), format: row.text(4), app: row.isNull(5) ? nil : row.text(5),
            reportedAt: row.isNull(6) ? nil : row.text(6), outcome: row.isNull(7) ? nil : row.text(7),
            chain: row.text(8).split(separator: "\n").map(String.init))
    }

    private static func optional(_ text: String?) -> SQLiteValue { text.map { .text($0) } ?? .null }
}
