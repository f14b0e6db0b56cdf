import Foundation

extension HistoryStore {
    /// Retention (`history_days`): chains last seen and status changes
    /// before `cutoff` go, but never a host's latest of either.
    func prune(olderThan cutoff: Date) throws {
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
            try ClientReportTable.prune(connection, olderThan: seconds)
        }
    }
}
