import Foundation
import PinwatchCore
import PinwatchProbe

/// CCADB's "All Certificate PEMs" report as ccadb.org serves it (a CSV of
/// `SHA-256 Fingerprint` and `X.509 Certificate (PEM)`): every root and
/// intermediate disclosed to the CA database. A certificate OpenSSL will
/// not parse (CCADB holds a few with negative serials or over-long names)
/// is skipped and counted, never fatal.
package struct CCADBReport {
    package struct Entry {
        package var fingerprint: String
        package var certificate: X509Certificate
    }

    package var entries: [Entry] = []
    /// Rows whose PEM did not parse, by fingerprint.
    package var malformed: [String] = []
    /// Rows whose fingerprint was not the SHA-256 of the certificate.
    package var mismatched: [String] = []
    /// Rows of a certificate already read (the yearly files overlap).
    package var duplicates = 0

    package init() {}

    /// One report file's text, added to what was read before; a row seen
    /// before (the same fingerprint in two files) is kept once.
    package mutating func add(csv text: String) throws(CCADBReportError) {
        let rows = CSVRows.parse(text)
        guard let header = rows.first, header.count >= 2,
            header[0].trimmingCharacters(in: .whitespaces) == "SHA-256 Fingerprint",
            header[1].trimmingCharacters(in: .whitespaces).hasPrefix("X.509 Certificate")
        else {
            throw CCADBReportError(
                message: "not a CCADB \"All Certificate PEMs\" report: its header is not SHA-256 Fingerprint,X.509 Certificate (PEM)")
        }
        var seen = Set(entries.map(\.fingerprint))
        for row in rows.dropFirst() where row.count >= 2 {
            let fingerprint = row[0].trimmingCharacters(in: .whitespaces).uppercased()
            guard !fingerprint.isEmpty else { continue }
            guard !seen.contains(fingerprint) else {
                duplicates += 1
                continue
            }
            seen.insert(fingerprint)
            guard let parsed = try? X509Certificate.certificates(pem: row[1]), parsed.count == 1 else {
                malformed.append(fingerprint)
                continue
            }
            let actual = parsed[0].facts.certSHA256.map { String(format: "%02X", $0) }.joined()
            guard actual == fingerprint else {
                mismatched.append(fingerprint)
                continue
            }
            entries.append(Entry(fingerprint: fingerprint, certificate: parsed[0]))
        }
    }
}

package struct CCADBReportError: Error, CustomStringConvertible {
    package var message: String
    package var description: String { message }
}

/// RFC 4180 rows: fields separated by commas, a quoted field may hold
/// commas, doubled quotes and line breaks.
enum CSVRows {
    static func parse(_ text: String) -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var field = ""
        var quoted = false
        var scalars = text.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar? = nil
        while let scalar = pending ?? scalars.next() {
            pending = nil
            if quoted {
                if scalar == "\"" {
                    let next = scalars.next()
                    if next == "\"" {
                        field.unicodeScalars.append("\"")
                    } else {
                        quoted = false
                        pending = next
                    }
                } else {
                    field.unicodeScalars.append(scalar)
                }
                continue
            }
            switch scalar {
            case "\"": quoted = true
            case ",":
                row.append(field)
                field = ""
            case "\r": continue
            case "\n":
                row.append(field)
                rows.append(row)
                row = []
                field = ""
            default: field.unicodeScalars.append(scalar)
            }
        }
        if !field.isEmpty || !row.isEmpty {
            row.append(field)
            rows.append(row)
        }
        return rows
    }
}
