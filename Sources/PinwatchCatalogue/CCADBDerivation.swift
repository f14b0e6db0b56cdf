import Foundation
import PinwatchCore
import PinwatchProbe

/// One family's share of CCADB's issuer graph: every certificate valid on
/// the reports' date signed under the keys of the family's roots (for a
/// family whose pool is not recorded, only its roots' own cross-signs),
/// as PEM files beside the family's hand-written ones, and `ccadb.yaml`
/// saying who signed whom. `scripts/catalogue-derive` writes the built-in
/// data with it, `pinwatch catalogue update` the user's.
package struct CCADBDerivation {
    package var files: [String: String] = [:]
    package var listing = ""
    /// Certificates under the family's roots, hand-written ones included.
    package var reached = 0

    package init(
        family: String, graph: IssuerGraph, handWritten: [String: X509Certificate], asOf: Date, source: String,
        report: CCADBReport, rootsOnly: Bool
    ) {
        let rootKeys = Set(handWritten.values.filter { $0.isSigned(by: $0) }.map(\.facts.spkiSHA256))
        var under = graph.under(keys: rootKeys).filter { graph.nodes[$0].facts.notAfter > asOf }
        if rootsOnly { under = under.filter { rootKeys.contains(graph.nodes[$0].facts.spkiSHA256) } }
        reached = under.count
        var fileOf: [String: String] = [:]
        for (file, certificate) in handWritten { fileOf[Self.hex(certificate.facts.certSHA256)] = file }
        for index in under {
            let facts = graph.nodes[index].facts
            let fingerprint = Self.hex(facts.certSHA256)
            if fileOf[fingerprint] == nil { fileOf[fingerprint] = "\(Self.slug(facts.subject))-\(fingerprint.prefix(8).lowercased()).pem" }
        }
        let day = DateText.day(asOf)
        listing = """
            # Generated from \(source): do not edit.
            # Every certificate valid on \(day) signed under this family's root keys,
            # found by signature (signed_by: the files whose key verifies it).
            as_of: \(day)
            family: \(family)
            source: \(Self.quoted(source))
            read: \(report.entries.count)
            malformed_skipped: \(report.malformed.count)
            certificates:

            """
        for index in under {
            let node = graph.nodes[index]
            let fingerprint = Self.hex(node.facts.certSHA256)
            guard let file = fileOf[fingerprint] else { continue }
            let signers = node.issuers.compactMap { fileOf[Self.hex(graph.nodes[$0].facts.certSHA256)] }.sorted()
            if handWritten[file] == nil {
                files[file] = node.certificate.pem
                listing += "  - file: \(file)\n"
            } else {
                listing += "  - hand_written: \(file)\n"
            }
            listing += "    subject: \(Self.quoted(node.facts.subject))\n"
            listing += "    sha256: \(fingerprint)\n"
            listing += "    not_after: \(DateText.day(node.facts.notAfter))\n"
            listing += "    signed_by: [\(signers.joined(separator: ", "))]\n"
        }
    }

    /// The files a listing says were derived (to remove before writing anew).
    package static func derivedFiles(inListing text: String) -> [String] {
        text.split(separator: "\n").filter { $0.hasPrefix("  - file: ") }.map { String($0.dropFirst("  - file: ".count)) }
            .filter { !$0.contains("/") && !$0.hasPrefix(".") }
    }

    /// `as_of:` of a listing: the date of the CCADB data.
    /// Read line by line up to the key, which heads the listing: splitting
    /// the whole listing was most of the built-in catalogue's load
    /// (Benchmarks/README.md, "The snapshot's own work").
    package static func asOf(inListing text: String) -> Date? {
        var rest = Substring(text)
        while !rest.isEmpty {
            let end = rest.firstIndex(of: "\n") ?? rest.endIndex
            if rest[..<end].hasPrefix("as_of: ") {
                return CatalogueYAML.parseDate(String(rest[..<end].dropFirst("as_of: ".count)))
            }
            rest = end == rest.endIndex ? "" : rest[rest.index(after: end)...]
        }
        return nil
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02X", $0) }.joined() }

    static func slug(_ subject: String) -> String {
        var out = ""
        for character in CertificateName.short(subject).lowercased() {
            if character.isASCII && (character.isLetter || character.isNumber) {
                out.append(character)
            } else if !out.hasSuffix("-") {
                out.append("-")
            }
        }
        return String(out.trimmingCharacters(in: CharacterSet(charactersIn: "-")).prefix(40))
    }

    static func quoted(_ text: String) -> String {
        "\""
            + text.unicodeScalars.map { scalar -> String in
                switch scalar {
                case "\"": return "\\\""
                case "\\": return "\\\\"
                case " "..."~": return String(scalar)
                default: return String(format: "\\u%04X", scalar.value)
                }
            }.joined() + "\""
    }
}
