import Foundation
import PinwatchCore
import PinwatchLocalWorld
import PinwatchProbe
import PinwatchTestSupport
import XCTest

/// `pinwatch catalogue` and `catalogue show` through the built binary, and
/// a configuration whose catalogue does not load: exit 2, nothing probed.
final class CommandsCatalogueTests: LocalFleetTestCase {
    /// No user catalogue unless a test writes one.
    private var dataHome: [String: String] { ["XDG_DATA_HOME": fleet.directory.appendingPathComponent("data").path] }

    private func writeCorpFamily() throws -> URL {
        try fleet.write(fleet.root.certificate.pem, to: "corp-root.pem")
        try fleet.write(fleet.issuing.certificate.pem, to: "corp-issuing.pem")
        try fleet.write(fleet.otherIssuing.certificate.pem, to: "other-issuing.pem")
        return try fleet.write(
            """
            hosts: []
            catalogue:
              - name: corp
                roots: [corp-root.pem]
                intermediates: [corp-issuing.pem]
            """, to: "pinwatch.yaml")
    }

    private func json(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text)
    }

    func testCatalogueListsTheBuiltInFamiliesAndTheConfigurationsFamily() throws {
        let config = try writeCorpFamily()
        let text = try fleet.run(["catalogue", "--config", config.path], environment: dataHome)
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(
            text.stdout.contains("letsencrypt — Let's Encrypt (built-in, CCADB data of 2026-08-21, checked 2026-11-26)"), text.stdout)
        XCTAssertTrue(text.stdout.contains("transition:   Generation Y from 2026-05-13"), text.stdout)
        XCTAssertTrue(text.stdout.contains("corp — corp (config)"), text.stdout)
        XCTAssertTrue(text.stdout.contains("provider cloudflare"), text.stdout)

        let listing = try fleet.run(["catalogue", "--format", "json", "--config", config.path], environment: dataHome)
        XCTAssertEqual(listing.status, 0, listing.stderr)
        let families = try XCTUnwrap(try json(listing.stdout)["families"] as? [[String: Any]])
        let corp = try XCTUnwrap(families.first { $0["name"] as? String == "corp" })
        XCTAssertEqual(corp["origin"] as? String, "config")
        XCTAssertEqual((corp["intermediates"] as? [[String: Any]])?.count, 1)
        let letsEncrypt = try XCTUnwrap(families.first { $0["name"] as? String == "letsencrypt" })
        XCTAssertEqual((letsEncrypt["intermediates"] as? [[String: Any]])?.count, 10)
    }

    func testShowPrintsEveryCertificateWithItsFourPinForms() throws {
        let config = try writeCorpFamily()
        let shown = try fleet.run(["catalogue", "show", "corp", "--config", config.path], environment: dataHome)
        XCTAssertEqual(shown.status, 0, shown.stderr)
        for certificate in [fleet.root.certificate, fleet.issuing.certificate] {
            for form in PinForms(certificate.facts).all {
                XCTAssertTrue(shown.stdout.contains(form), "\(form) missing from:\n\(shown.stdout)")
            }
        }

        let builtIn = try fleet.run(["catalogue", "show", "letsencrypt", "--format", "json"], environment: dataHome)
        XCTAssertEqual(builtIn.status, 0, builtIn.stderr)
        let certificates = try XCTUnwrap(try json(builtIn.stdout)["certificates"] as? [[String: Any]])
        XCTAssertEqual(certificates.count, 2 + 8 + 10 + 2 + 6, "roots, cross-signs, the classic pool, Generation Y")
        let x1 = try XCTUnwrap(certificates.first { $0["name"] as? String == "ISRG Root X1" })
        XCTAssertEqual(x1["sha256"] as? String, "sha256/C5+lpZ7tcVwmwQIMcRtPbsQtWLABXhQzejna0wHFr8M=")
        for key in ["spki", "key_pin", "cert"] { XCTAssertNotNil(x1[key] as? String, key) }
    }

    /// `catalogue update` on CCADB's report format (a committed sample of
    /// real rows, one malformed): offline, into the data folder, verified,
    /// and the listing then says the data's date.
    func testUpdateReadsCCADBReportsIntoTheDataFolderAndTheListingSaysTheirDate() throws {
        let sample = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("PinwatchCatalogueTests/Fixtures/ccadb/sample.csv").path
        let updated = try fleet.run(["catalogue", "update", sample, "--as-of", "2026-08-21"], environment: dataHome)
        XCTAssertEqual(updated.status, 0, updated.stderr)
        XCTAssertTrue(
            updated.stdout.contains("read 7 certificates from 1 report (1 malformed skipped, 1 repeated rows, 0 revoked left out)"),
            updated.stdout)
        XCTAssertTrue(updated.stdout.contains("letsencrypt: 7 certificates under its roots, 0 not in the built-in data"), updated.stdout)
        XCTAssertTrue(updated.stdout.contains("gts: 11 certificates under its roots"), updated.stdout)
        let folder = fleet.directory.appendingPathComponent("data/pinwatch/catalogue/letsencrypt")
        let listing = try String(contentsOf: folder.appendingPathComponent("ccadb.yaml"), encoding: .utf8)
        XCTAssertTrue(listing.contains("as_of: 2026-08-21"), listing)
        XCTAssertTrue(listing.contains("malformed_skipped: 1"), listing)

        let shown = try fleet.run(["catalogue"], environment: dataHome)
        XCTAssertEqual(shown.status, 0, shown.stderr)
        XCTAssertTrue(shown.stdout.contains("letsencrypt — Let's Encrypt (user, CCADB data of 2026-08-21"), shown.stdout)

        let wrong = try fleet.write("name,value\na,b\n", to: "not-a-report.csv")
        let refused = try fleet.run(["catalogue", "update", wrong.path], environment: dataHome)
        XCTAssertEqual(refused.status, 2)
        XCTAssertTrue(refused.stderr.contains("neither CCADB's \"All Certificate PEMs\" report"), refused.stderr)
    }

    func testAnUnknownFamilyExitsTwoNamingTheFamilies() throws {
        let outcome = try fleet.run(["catalogue", "show", "nosuch"], environment: dataHome)
        XCTAssertEqual(outcome.status, 2)
        XCTAssertEqual(outcome.stdout, "")
        XCTAssertTrue(outcome.stderr.contains("no family \"nosuch\" in the catalogue (families: amazon, digicert"), outcome.stderr)
    }

    func testAUserFamilyInTheDataHomeReplacesTheBuiltInOne() throws {
        let folder = "data/pinwatch/catalogue/letsencrypt"
        try FileManager.default.createDirectory(
            at: fleet.directory.appendingPathComponent(folder), withIntermediateDirectories: true)
        try fleet.write(fleet.root.certificate.pem, to: "\(folder)/root.pem")
        try fleet.write(fleet.issuing.certificate.pem, to: "\(folder)/issuing.pem")
        try fleet.write(
            """
            name: letsencrypt
            display_name: Let's Encrypt (newer)
            roots: [{file: root.pem}]
            intermediates: [{file: issuing.pem, state: active, root: root.pem}]
            """, to: "\(folder)/family.yaml")
        let outcome = try fleet.run(["catalogue", "--format", "json"], environment: dataHome)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let families = try XCTUnwrap(try json(outcome.stdout)["families"] as? [[String: Any]])
        let letsEncrypt = families.filter { $0["name"] as? String == "letsencrypt" }
        XCTAssertEqual(letsEncrypt.count, 1)
        XCTAssertEqual(letsEncrypt.first?["origin"] as? String, "user")
        XCTAssertEqual(letsEncrypt.first?["display_name"] as? String, "Let's Encrypt (newer)")
    }

    func testABadCatalogueEntryFailsTheConfigurationWithItsLineAndNothingIsProbed() throws {
        let blackHole = fleet.keep(try BlackHoleServer())
        try fleet.write(fleet.root.certificate.pem, to: "corp-root.pem")
        try fleet.write(fleet.otherIssuing.certificate.pem, to: "other-issuing.pem")
        try fleet.write("not a certificate\n", to: "notes.pem")
        let config = try fleet.write(
            """
            timeout: 30s
            hosts:
              - host: hole.test
                port: \(blackHole.port)
                connect: 127.0.0.1
            catalogue:
              - name: corp
                roots: [corp-root.pem]
                intermediates:
                  - other-issuing.pem
                  - notes.pem
            """, to: "broken.yaml")
        let outcome = try fleet.run(["snapshot", "--format", "json", "--config", config.path], environment: dataHome, timeout: 25)
        XCTAssertEqual(outcome.status, 2, outcome.stderr)
        XCTAssertEqual(outcome.stdout, "")
        let lines = outcome.stderr.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 2, outcome.stderr)
        XCTAssertTrue(
            lines.contains { $0.contains("\(config.path):10:") && $0.contains("does not chain to the family's root") }, outcome.stderr)
        XCTAssertTrue(lines.contains { $0.contains("\(config.path):11:") && $0.contains("notes.pem: not a certificate") }, outcome.stderr)
        XCTAssertEqual(blackHole.acceptedConnections, 0, "a configuration whose catalogue does not load must not be probed")
    }
}
