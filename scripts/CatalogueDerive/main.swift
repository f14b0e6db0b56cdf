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

let families = ((try? fileManager.contentsOfDirectory(atPath: catalogue)) ?? []).sorted().filter { name in
    fileManager.fileExists(atPath: "\(catalogue)/\(name)/family.yaml") && (chosen?.contains(name) ?? true)
}
for family in families {
    let folder = "\(catalogue)/\(family)"
    // Files a previous run wrote go first: the listing says which.
    if let old = try? String(contentsOfFile: "\(folder)/ccadb.yaml", encoding: .utf8) {
        for file in CCADBDerivation.derivedFiles(inListing: old) { try? fileManager.removeItem(atPath: "\(folder)/\(file)") }
    }
    var handWritten: [String: X509Certificate] = [:]
    for file in ((try? fileManager.contentsOfDirectory(atPath: folder)) ?? []).sorted() where file.hasSuffix(".pem") {
        guard let text = try? String(contentsOfFile: "\(folder)/\(file)", encoding: .utf8),
            let certificate = try? X509Certificate.certificates(pem: text).first
        else { fail("\(folder)/\(file): not a certificate") }
        handWritten[file] = certificate
    }
    let derivation = CCADBDerivation(
        family: family, graph: graph, handWritten: handWritten, asOf: asOf, source: "scripts/catalogue-derive from \(source)", report: report,
        rootsOnly: rootsOnly.contains(family))
    for (file, pem) in derivation.files {
        do { try pem.write(toFile: "\(folder)/\(file)", atomically: true, encoding: .utf8) } catch { fail("\(folder)/\(file): \(error)") }
    }
    do { try derivation.listing.write(toFile: "\(folder)/ccadb.yaml", atomically: true, encoding: .utf8) } catch { fail("\(error)") }
    print("catalogue-derive: \(family): \(derivation.reached) certificates under its roots, \(derivation.files.count) written")
}
