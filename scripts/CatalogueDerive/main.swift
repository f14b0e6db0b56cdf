import Foundation
import PinwatchCatalogue
import PinwatchCore
import PinwatchProbe

/// Derives the catalogue's issuer graph from CCADB's "All Certificate
/// PEMs" reports: for each family folder of catalogue/, every certificate
/// signed (by signature, not by name) under the keys of the roots in that
/// folder, valid on the report's date, written beside the hand-written
/// files as one PEM each, with `ccadb.yaml` listing who signed whom. A
/// family named with --roots-only gets only the certificates of its root
/// keys signed by others (cross-signs): its issuing pool is not recorded.
///
/// pinwatch-catalogue-derive --reports DIR --catalogue DIR --as-of YYYY-MM-DD
///     --source TEXT [--roots-only NAME,…] [--families NAME,…]

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("catalogue-derive: \(message)\n".utf8))
    exit(1)
}

var options: [String: String] = [:]
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    guard argument.hasPrefix("--"), let value = arguments.next() else { fail("expected --option VALUE, found \(argument)") }
    options[String(argument.dropFirst(2))] = value
}
guard let reports = options["reports"], let catalogue = options["catalogue"], let asOfText = options["as-of"],
    let source = options["source"]
else { fail("needs --reports, --catalogue, --as-of and --source") }
let dayFormatter = ISO8601DateFormatter()
dayFormatter.formatOptions = [.withFullDate]
guard let asOf = dayFormatter.date(from: asOfText) else { fail("--as-of \(asOfText) is not a date") }
let rootsOnly = Set((options["roots-only"] ?? "").split(separator: ",").map(String.init))
let chosen = options["families"].map { Set($0.split(separator: ",").map(String.init)) }

let fileManager = FileManager.default
var report = CCADBReport()
let csvFiles = ((try? fileManager.contentsOfDirectory(atPath: reports)) ?? []).filter { $0.hasSuffix(".csv") }.sorted()
guard !csvFiles.isEmpty else { fail("no .csv report in \(reports)") }
for file in csvFiles {
    guard let text = try? String(contentsOfFile: (reports as NSString).appendingPathComponent(file), encoding: .utf8) else {
        fail("\(file): not readable as UTF-8")
    }
    do { try report.add(csv: text) } catch { fail("\(file): \(error)") }
}
let graph = IssuerGraph(report.entries.map(\.certificate))
print(
    "catalogue-derive: \(report.entries.count) certificates read, \(report.malformed.count) malformed skipped, "
        + "\(report.duplicates) repeated rows, \(report.mismatched.count) with a wrong fingerprint skipped")

func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02X", $0) }.joined() }

func slug(_ subject: String) -> String {
    let name = CertificateName.short(subject).lowercased()
    var out = ""
    for character in name {
        if character.isASCII && (character.isLetter || character.isNumber) {
            out.append(character)
        } else if !out.hasSuffix("-") {
            out.append("-")
        }
    }
    return String(out.trimmingCharacters(in: CharacterSet(charactersIn: "-")).prefix(40))
}

func quoted(_ text: String) -> String {
    "\"" + text.unicodeScalars.map { scalar -> String in
        switch scalar {
        case "\"": return "\\\""
        case "\\": return "\\\\"
        case " "..."~": return String(scalar)
        default: return String(format: "\\u%04X", scalar.value)
        }
    }.joined() + "\""
}

let families = ((try? fileManager.contentsOfDirectory(atPath: catalogue)) ?? []).sorted().filter { name in
    fileManager.fileExists(atPath: "\(catalogue)/\(name)/family.yaml") && (chosen?.contains(name) ?? true)
}
for family in families {
    let folder = "\(catalogue)/\(family)"
    // Files a previous run wrote go first: the listing says which.
    if let old = try? String(contentsOfFile: "\(folder)/ccadb.yaml", encoding: .utf8) {
        for line in old.split(separator: "\n") where line.hasPrefix("  - file: ") {
            try? fileManager.removeItem(atPath: "\(folder)/\(line.dropFirst("  - file: ".count))")
        }
    }
    var handWritten: [String: X509Certificate] = [:]
    for file in ((try? fileManager.contentsOfDirectory(atPath: folder)) ?? []).sorted() where file.hasSuffix(".pem") {
        guard let text = try? String(contentsOfFile: "\(folder)/\(file)", encoding: .utf8),
            let certificate = try? X509Certificate.certificates(pem: text).first
        else { fail("\(folder)/\(file): not a certificate") }
        handWritten[file] = certificate
    }
    let rootKeys = Set(handWritten.values.filter { $0.isSigned(by: $0) }.map(\.facts.spkiSHA256))
    guard !rootKeys.isEmpty else { fail("\(family): no self-signed root in its folder") }
    var reached = graph.under(keys: rootKeys).filter { graph.nodes[$0].facts.notAfter > asOf }
    if rootsOnly.contains(family) { reached = reached.filter { rootKeys.contains(graph.nodes[$0].facts.spkiSHA256) } }
    var fileOf: [String: String] = [:]
    for (file, certificate) in handWritten { fileOf[hex(certificate.facts.certSHA256)] = file }
    for index in reached {
        let facts = graph.nodes[index].facts
        let fingerprint = hex(facts.certSHA256)
        if fileOf[fingerprint] == nil { fileOf[fingerprint] = "\(slug(facts.subject))-\(fingerprint.prefix(8).lowercased()).pem" }
    }
    var listing = """
        # Generated by scripts/catalogue-derive from \(source): do not edit.
        # Every certificate valid on \(asOfText) signed under this family's root keys,
        # found by signature (signed_by: the files whose key verifies it).
        as_of: \(asOfText)
        source: \(quoted(source))
        read: \(report.entries.count)
        malformed_skipped: \(report.malformed.count)
        certificates:

        """
    var written = 0
    for index in reached {
        let node = graph.nodes[index]
        let fingerprint = hex(node.facts.certSHA256)
        guard let file = fileOf[fingerprint] else { continue }
        let signers = node.issuers.compactMap { fileOf[hex(graph.nodes[$0].facts.certSHA256)] }.sorted()
        if handWritten[file] == nil {
            try node.certificate.pem.write(toFile: "\(folder)/\(file)", atomically: true, encoding: .utf8)
            listing += "  - file: \(file)\n"
            written += 1
        } else {
            listing += "  - hand_written: \(file)\n"
        }
        listing += "    subject: \(quoted(node.facts.subject))\n"
        listing += "    sha256: \(fingerprint)\n"
        listing += "    not_after: \(dayFormatter.string(from: node.facts.notAfter))\n"
        listing += "    signed_by: [\(signers.joined(separator: ", "))]\n"
    }
    try listing.write(toFile: "\(folder)/ccadb.yaml", atomically: true, encoding: .utf8)
    print("catalogue-derive: \(family): \(reached.count) certificates under its roots, \(written) written")
}
