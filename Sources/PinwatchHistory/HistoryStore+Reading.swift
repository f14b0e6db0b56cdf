import Foundation
import PinwatchCore

extension HistoryStore {
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
    var headlineColumn: String { fileVersion >= 5 ? "headline" : "NULL" }

    /// A `SELECT at, status, severity, reason, headline` row.
    static func recordedStatus(_ row: SQLiteRow) -> RecordedStatus? {
        guard let status = HostStatus(rawValue: row.text(1)), let severity = HostSeverity(rawValue: row.text(2)) else { return nil }
        return RecordedStatus(
            date: Date(timeIntervalSince1970: Double(row.integer(0))), status: status, severity: severity, reason: row.text(3),
            headline: row.isNull(4) ? nil : HostHeadline(rawValue: row.text(4)))
    }
}
