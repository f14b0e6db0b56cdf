import Foundation
import PinwatchCore
import PinwatchProbe
import XCTest

@testable import PinwatchCatalogue

/// The catalogue's issuer graph comes from CCADB's reports, by signature:
/// the reader and the graph on a committed sample of real rows (eight
/// certificates of the 2026-08-21 report, one OpenSSL will not parse, and
/// a row repeated as the yearly files repeat them), and the committed
/// derivation checked against the files it wrote.
final class CCADBDerivationTests: XCTestCase {
    private static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures").path

    private func sample() throws -> CCADBReport {
        var report = CCADBReport()
        try report.add(csv: String(contentsOfFile: "\(Self.fixtures)/ccadb/sample.csv", encoding: .utf8))
        return report
    }

    func testTheReaderSkipsAndCountsWhatItCannotParse() throws {
        let report = try sample()
        XCTAssertEqual(report.entries.count, 7)
        XCTAssertEqual(report.malformed, ["363CDDBDE8BFE2E8D3DE0E32F8578A1FB676CBB76538A03FDE4DE3BD5BEB0497"])
        XCTAssertEqual(report.duplicates, 1)
        XCTAssertEqual(report.mismatched, [])
    }

    func testAFileThatIsNotTheReportIsRefusedWithWhatWasExpected() {
        var report = CCADBReport()
        XCTAssertThrowsError(try report.add(csv: "name,value\na,b\n")) { error in
            XCTAssertTrue("\(error)".contains("not a CCADB \"All Certificate PEMs\" report"), "\(error)")
        }
    }

    func testTheGraphFollowsSignaturesFromARootKey() throws {
        let report = try sample()
        let graph = IssuerGraph(report.entries.map(\.certificate))
        let x1 = try XCTUnwrap(graph.nodes.first { $0.facts.subject.hasPrefix("CN=ISRG Root X1") })
        let under = graph.under(keys: [x1.facts.spkiSHA256]).map { graph.nodes[$0] }
        let names = under.map { "\(CertificateName.short($0.facts.subject)) by \(CertificateName.short($0.facts.issuer))" }
        // Root YR's key is reached through its cross-sign; its self-signed
        // certificate and YR1 follow from that key. WE1 is another family's.
        XCTAssertEqual(
            Set(names),
            [
                "ISRG Root X1 by ISRG Root X1", "R10 by ISRG Root X1", "E6 by ISRG Root X1", "Root YR by ISRG Root X1",
                "Root YR by Root YR", "YR1 by Root YR",
            ])
        let yr1 = try XCTUnwrap(under.first { $0.facts.subject.hasPrefix("CN=YR1") })
        XCTAssertEqual(
            yr1.issuers.map { CertificateName.short(graph.nodes[$0].facts.subject) }, ["Root YR", "Root YR"],
            "both certificates of Root YR's key verify it")
    }

    func testTheCommittedDerivationListsTheFilesItWrote() throws {
        for family in ["letsencrypt", "gts", "amazon"] {
            let folder = (RepositoryCatalogue.folder as NSString).appendingPathComponent(family)
            let listing = try String(contentsOfFile: "\(folder)/ccadb.yaml", encoding: .utf8)
            XCTAssertTrue(listing.contains("as_of: 2026-08-21"), family)
            XCTAssertTrue(listing.contains("malformed_skipped: 15"), family)
            let lines = listing.split(separator: "\n").map(String.init)
            var checked = 0
            for (index, line) in lines.enumerated() {
                let file: String
                if line.hasPrefix("  - file: ") {
                    file = String(line.dropFirst("  - file: ".count))
                } else if line.hasPrefix("  - hand_written: ") {
                    file = String(line.dropFirst("  - hand_written: ".count))
                } else {
                    continue
                }
                let certificate = try XCTUnwrap(CertificateReader.certificates(inFile: "\(folder)/\(file)").first, file)
                let fingerprint = certificate.facts.certSHA256.map { String(format: "%02X", $0) }.joined()
                XCTAssertEqual(lines[index + 2], "    sha256: \(fingerprint)", "\(family)/\(file)")
                checked += 1
            }
            XCTAssertGreaterThan(checked, 10, family)
        }
    }

    func testAsOfIsTheListingsDataDateWhereverTheKeyStands() throws {
        let day = try XCTUnwrap(DateText.parseDay("2026-08-21"))
        for family in ["letsencrypt", "gts", "amazon"] {
            let folder = (RepositoryCatalogue.folder as NSString).appendingPathComponent(family)
            XCTAssertEqual(CCADBDerivation.asOf(inListing: try String(contentsOfFile: "\(folder)/ccadb.yaml", encoding: .utf8)), day)
        }
        XCTAssertEqual(CCADBDerivation.asOf(inListing: "as_of: 2026-08-21"), day)
        XCTAssertEqual(CCADBDerivation.asOf(inListing: "a: 1\n\nas_of: 2026-08-21\nas_of: 2020-01-01\n"), day)
        XCTAssertNil(CCADBDerivation.asOf(inListing: "a: 1\n  as_of: 2026-08-21\n"))
        XCTAssertNil(CCADBDerivation.asOf(inListing: "a: 1\nnot as_of: 2026-08-21"))
        XCTAssertNil(CCADBDerivation.asOf(inListing: ""))
    }
}
