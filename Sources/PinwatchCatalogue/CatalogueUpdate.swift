import Foundation
import PinwatchCore
import PinwatchProbe
import PinwatchSystem

/// `pinwatch catalogue update FILE…`: CCADB's reports, as a user downloads
/// them from ccadb.org, turned into the user's copy of every built-in
/// family (its hand-written description and files, with the issuer graph
/// derived anew), offline. Nothing is written unless the result loads:
/// every certificate a family names verified against its parent.
package enum CatalogueUpdate {
    /// Well above any report CCADB publishes, so that a wrong file named
    /// by mistake cannot fill memory.
    static let maximumReportBytes = 64 * 1024 * 1024

    package struct Result {
        /// Relative path under the user's catalogue folder → contents.
        package var files: [String: String] = [:]
        /// Derived files a previous update wrote, to remove first.
        package var stale: [String] = []
        package var lines: [String] = []
        package var asOf: Date
    }

    package struct Failure: Error, CustomStringConvertible {
        package var message: String
        package var description: String { message }
    }

    /// - Parameters:
    ///   - previous: reads a file of the user's folder, nil when absent.
    ///   - asOf: the reports' date; nil takes the newest NotBefore in them.
    package static func run(files: [String], asOf: Date?, previous: (String) -> String?) throws(Failure) -> Result {
        var report = CCADBReport()
        var revoked = Set<String>()
        var pemReports = 0
        for file in files {
            let text: String
            do { text = try RegularFile.readText(file, limit: maximumReportBytes) } catch { throw Failure(message: error.description) }
            let header = text.prefix { $0 != "\n" && $0 != "\r\n" }
            if header.contains("X.509 Certificate (PEM)") {
                do { try report.add(csv: text) } catch { throw Failure(message: "\(file): \(error)") }
                pemReports += 1
            } else if header.contains("Revocation Status") && header.contains("SHA-256 Fingerprint") {
                revoked.formUnion(revokedFingerprints(CSVRows.parse(text)))
            } else {
                throw Failure(
                    message:
                        "\(file): neither CCADB's \"All Certificate PEMs\" report nor its \"All Certificate Information\" (V5) report")
            }
        }
        guard pemReports > 0 else {
            throw Failure(message: "no \"All Certificate PEMs\" report among the files: it holds the certificates")
        }
        let kept = report.entries.filter { !revoked.contains($0.fingerprint) }
        guard let newest = kept.map(\.certificate.facts.notBefore).max() else {
            throw Failure(message: "the reports hold no certificate OpenSSL can read")
        }
        let date = asOf ?? newest
        // The built-in roots join the graph: a report of a few years may
        // hold an intermediate without the root that signed it.
        let known = Set(kept.map(\.fingerprint))
        let roots = BuiltinCatalogueData.files.filter { $0.key.hasSuffix(".pem") }.sorted { $0.key < $1.key }
            .compactMap { try? X509Certificate.certificates(pem: $0.value).first }
            .filter { $0.isSigned(by: $0) && !known.contains(CCADBDerivation.hex($0.facts.certSHA256)) }
        let graph = IssuerGraph(kept.map(\.certificate) + roots)
        var result = Result(asOf: date)
        result.lines.append(
            "read \(report.entries.count) certificates from \(pemReports) report\(pemReports == 1 ? "" : "s") "
                + "(\(report.malformed.count) malformed skipped, \(report.duplicates) repeated rows, "
                + "\(revoked.count) revoked left out); data as of \(DateText.day(date))")
        let builtIn: Catalogue
        do { builtIn = try CatalogueLoader.load(sources: [], userFolder: nil) } catch { throw Failure(message: "\(error)") }
        for family in builtIn.families {
            let prefix = family.name + "/"
            let own = BuiltinCatalogueData.files.filter { $0.key.hasPrefix(prefix) && !$0.key.dropFirst(prefix.count).contains("/") }
            let derivedBefore = Set(own["\(prefix)ccadb.yaml"].map(CCADBDerivation.derivedFiles(inListing:)) ?? [])
            var handWritten: [String: X509Certificate] = [:]
            for (path, text) in own where path.hasSuffix(".pem") {
                let file = String(path.dropFirst(prefix.count))
                guard !derivedBefore.contains(file), let certificate = try? X509Certificate.certificates(pem: text).first else { continue }
                handWritten[file] = certificate
            }
            let derivation = CCADBDerivation(
                family: family.name, graph: graph, handWritten: handWritten, asOf: date, source: "pinwatch catalogue update",
                report: report,
                rootsOnly: !family.knowsPool)
            // The built-in files stay beside the new ones: the description
            // names some of them, and a certificate may have left the reports.
            for (path, text) in own where !path.hasSuffix("ccadb.yaml") { result.files[path] = text }
            for (file, pem) in derivation.files { result.files[prefix + file] = pem }
            result.files[prefix + "ccadb.yaml"] = derivation.listing
            if let old = previous(prefix + "ccadb.yaml") {
                result.stale += CCADBDerivation.derivedFiles(inListing: old).map { prefix + $0 }.filter { result.files[$0] == nil }
            }
            let added = derivation.files.keys.filter { !derivedBefore.contains($0) }.count
            result.lines.append("\(family.name): \(derivation.reached) certificates under its roots, \(added) not in the built-in data")
        }
        return result
    }

    /// Fingerprints the V5 report marks revoked.
    static func revokedFingerprints(_ rows: [[String]]) -> [String] {
        guard let header = rows.first, let fingerprint = header.firstIndex(of: "SHA-256 Fingerprint"),
            let status = header.firstIndex(of: "Revocation Status")
        else { return [] }
        return rows.dropFirst().compactMap { row in
            guard row.count > max(fingerprint, status) else { return nil }
            let value = row[status].trimmingCharacters(in: .whitespaces).lowercased()
            return value.isEmpty || value.hasPrefix("not ") ? nil : row[fingerprint].uppercased()
        }
    }
}
