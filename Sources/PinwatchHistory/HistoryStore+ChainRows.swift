import Foundation
import PinwatchCore

extension HistoryStore {
    /// A chain seen before on this host (a rollback) gets its row back;
    /// otherwise a new row, with any new certificates.
    func storeChain(_ chain: ObservedChain, hostID: Int64, seconds: Int64) throws -> Int64 {
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
}
