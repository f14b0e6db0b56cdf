import Foundation
import PinwatchCore

/// The certificates Certificate Transparency logged for each watched host,
/// as judged when they were read (migration step 8), through a connection
/// of its own, as the positions are: a later run lists what was logged
/// before the position it resumes from, until the certificate expires.
package enum CTLoggedTable {
    /// Per host, as `CTFollowing` keeps them.
    static let perHost = 20
    /// More rows than any fleet's recent certificates is a damaged file.
    static let rowLimit = 100_000
    /// A release list is a handful of names; a longer text is damage.
    static let releasesLimit = 64 << 10

    /// The unexpired certificates stored per host (its `sni`, lower case),
    /// newest first, at most `perHost` each; none before the table exists.
    /// A row that is not a certificate (wrong sizes) is skipped.
    package static func read(path: String, now: Date) throws(HistoryError) -> [String: [CTLoggedCertificate]] {
        guard path != HistoryStore.inMemoryPath, FileManager.default.fileExists(atPath: path) else { return [:] }
        do {
            let connection = try SQLiteConnection(path: path, readOnly: true)
            var hasTable = false
            try connection.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'ct_logged'") { _ in hasTable = true }
            guard hasTable else { return [:] }
            var found: [String: [CTLoggedCertificate]] = [:]
            try connection.query(
                """
                SELECT host, log, entry_index, logged_at, precertificate, serial, not_before, not_after, issuer, issuer_spki,
                leaf_spki, survives, breaks, chain FROM ct_logged WHERE not_after > ?1 ORDER BY logged_at DESC, entry_index DESC LIMIT ?2
                """, [.integer(Int64(now.timeIntervalSince1970)), .integer(Int64(rowLimit))]
            ) { row in
                let host = row.text(0)
                guard (found[host]?.count ?? 0) < perHost, row.integer(2) >= 0 else { return }
                let issuerKey = row.blob(9)
                let leafKey = row.blob(10)
                guard issuerKey.isEmpty || issuerKey.count == 32, leafKey.count == 32 else { return }
                let survives = row.text(11)
                let breaks = row.text(12)
                guard survives.utf8.count <= releasesLimit, breaks.utf8.count <= releasesLimit else { return }
                found[host, default: []].append(
                    CTLoggedCertificate(
                        loggedAt: date(row.integer(3)), log: row.text(1), index: UInt64(row.integer(2)),
                        precertificate: row.integer(4) != 0, serial: row.text(5), notBefore: date(row.integer(6)),
                        notAfter: date(row.integer(7)), issuer: row.text(8), issuerSPKISHA256: issuerKey, leafSPKISHA256: leafKey,
                        verdict: CTLoggedVerdict(survives: releases(survives), breaks: releases(breaks)),
                        chainDER: certificates(row.blob(13))))
            }
            return found
        } catch {
            throw HistoryError(path, "cannot read the Certificate Transparency certificates (\(error))")
        }
    }

    /// Stores each host's new certificates (one seen again is kept as it
    /// was) and forgets the expired ones, in one transaction.
    package static func store(_ logged: [String: [CTLoggedCertificate]], path: String, now: Date) throws(HistoryError) {
        do {
            let connection = try SQLiteConnection(path: path, readOnly: false)
            try connection.transaction {
                for (host, certificates) in logged {
                    for certificate in certificates where certificate.index <= UInt64(Int64.max) {
                        try connection.query(
                            """
                            INSERT OR IGNORE INTO ct_logged(host, log, entry_index, logged_at, precertificate, serial, not_before,
                            not_after, issuer, issuer_spki, leaf_spki, survives, breaks, chain)
                            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)
                            """,
                            [
                                .text(host), .text(certificate.log), .integer(Int64(certificate.index)),
                                .integer(seconds(certificate.loggedAt)), .integer(certificate.precertificate ? 1 : 0),
                                .text(certificate.serial), .integer(seconds(certificate.notBefore)),
                                .integer(seconds(certificate.notAfter)), .text(certificate.issuer), .blob(certificate.issuerSPKISHA256),
                                .blob(certificate.leafSPKISHA256), .text(certificate.verdict.survives.joined(separator: "\n")),
                                .text(certificate.verdict.breaks.joined(separator: "\n")), .blob(joined(certificate.chainDER)),
                            ])
                    }
                }
                try connection.query("DELETE FROM ct_logged WHERE not_after <= ?1", [.integer(seconds(now))])
            }
        } catch {
            throw HistoryError(path, "cannot store the Certificate Transparency certificates (\(error))")
        }
    }

    /// Each certificate after its length in three bytes, as TLS writes a chain.
    static func joined(_ certificates: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = []
        for der in certificates where der.count < 1 << 24 {
            out += [UInt8(der.count >> 16), UInt8(der.count >> 8 & 0xFF), UInt8(der.count & 0xFF)] + der
        }
        return out
    }

    /// `joined`'s certificates; none when the bytes do not split into them
    /// (the certificate is then kept with the verdict it was stored with).
    static func certificates(_ bytes: [UInt8]) -> [[UInt8]] {
        var out: [[UInt8]] = []
        var offset = 0
        while offset < bytes.count {
            guard bytes.count - offset >= 3 else { return [] }
            let length = Int(bytes[offset]) << 16 | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2])
            offset += 3
            guard length > 0, bytes.count - offset >= length, out.count < 16 else { return [] }
            out.append(Array(bytes[offset..<(offset + length)]))
            offset += length
        }
        return out
    }

    /// Release names cannot hold a line feed (a configuration's names are one line).
    private static func releases(_ text: String) -> [String] {
        text.isEmpty ? [] : text.split(separator: "\n").map(String.init)
    }

    private static func seconds(_ date: Date) -> Int64 {
        Int64(max(-9e15, min(9e15, date.timeIntervalSince1970)).rounded(.down))
    }

    private static func date(_ seconds: Int64) -> Date { Date(timeIntervalSince1970: Double(seconds)) }
}
