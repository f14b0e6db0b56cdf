import Foundation
import PinwatchCore
import PinwatchLocalWorld
import PinwatchProbe
import PinwatchTestSupport
import XCTest

/// Apple's NSPinnedDomains read from an Info.plist (XML with a byte order
/// mark and CRLF, and binary) and judged against loopback chains: leaf,
/// the fleet's issuing CA (sent), its root (from the trust store).
///
/// - api.test: the root as a CA identity and the leaf as a leaf identity:
///   both pass, and the leaf list makes it break at the next leaf key.
/// - pay.test: the issuing CA passes, a stale leaf identity does not: refused.
/// - svc.test with NSIncludesSubdomains and a stale CA identity: one.svc.test
///   (one label below) is refused; two.one.svc.test is not ATS-pinned.
/// - empty.test: an empty NSPinnedCAIdentities refuses every chain.
final class ClientPinsATSTests: LocalFleetTestCase {
    private var hosts: [String: LocalFleet.Host] = [:]
    private var apiLeaf: X509Certificate!

    override func setUpWithError() throws {
        try super.setUpWithError()
        for name in ["api.test", "pay.test", "one.svc.test", "two.one.svc.test", "empty.test"] {
            let served = try fleet.serveLeaf(name)
            if name == "api.test" { apiLeaf = served.leaf.certificate }
            hosts[name] = fleet.add(LocalFleet.Host(name: name, port: served.server.port, leafCertificate: served.leaf.certificate))
        }
    }

    private func plistDomains() throws -> [String: Any] {
        let stale = try LocalFleet.unrelatedPin()
        func list(_ pins: [String]) -> [[String: String]] { pins.map { ["SPKI-SHA256-BASE64": String($0.dropFirst(7))] } }
        return [
            "api.test": [
                "NSPinnedCAIdentities": list([LocalFleet.pin(fleet.root.certificate)]),
                "NSPinnedLeafIdentities": list([LocalFleet.pin(apiLeaf)]),
            ],
            "pay.test": [
                "NSPinnedCAIdentities": list([LocalFleet.pin(fleet.issuing.certificate)]), "NSPinnedLeafIdentities": list([stale]),
            ],
            "svc.test": ["NSIncludesSubdomains": true, "NSPinnedCAIdentities": list([stale])],
            "empty.test": ["NSPinnedCAIdentities": [[String: String]]()],
        ]
    }

    /// The XML plist as Xcode writes it, saved by an editor on Windows:
    /// a byte order mark and CRLF line ends.
    private func writeXML(_ domains: [String: Any]) throws {
        let data = try PropertyListSerialization.data(
            fromPropertyList: ["CFBundleName": "Shop", "NSAppTransportSecurity": ["NSPinnedDomains": domains]], format: .xml,
            options: 0)
        let text = String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\n", with: "\r\n")
        XCTAssertTrue(text.contains("<key>NSPinnedCAIdentities</key>"), text)
        try fleet.write([0xEF, 0xBB, 0xBF] + Array(text.utf8), to: "Info.plist")
    }

    private func writeConfig() throws -> URL {
        let domains = try plistDomains()
        try writeXML(domains)
        let binary = try PropertyListSerialization.data(
            fromPropertyList: ["NSAppTransportSecurity": ["NSPinnedDomains": domains]], format: .binary, options: 0)
        XCTAssertTrue(binary.starts(with: Array("bplist".utf8)))
        try fleet.write(Array(binary), to: "Info-binary.plist")
        return try fleet.writeConfig(settings: [
            "clients:", "  - {name: ios 8, ats: Info.plist}", "  - {name: ios 8 compiled, ats: Info-binary.plist}",
        ])
    }

    private func port(_ name: String) -> Int { hosts[name]!.port }

    func testCheckJudgesEachRuleAsATSDoes() throws {
        let config = try writeConfig()
        let outcome = try fleet.run(["check", "--config", config.path, "--client", "ios 8"])
        XCTAssertEqual(outcome.status, 2, "\(outcome.stdout)\(outcome.stderr)")
        let lines = outcome.stdout.split(separator: "\n").map(String.init)
        func line(_ host: String) -> String { lines.first { $0.hasPrefix("\(host):\(port(host)) ") } ?? "" }
        XCTAssertTrue(
            line("api.test").contains(
                "WARNING leaf_only: ios 8 (ATS NSPinnedCAIdentities, the CA tier: matches; NSPinnedLeafIdentities, the leaf tier: matches; both must match)"
            ), outcome.stdout)
        XCTAssertTrue(
            line("pay.test").contains(
                "CRITICAL blocked: ios 8 (ATS NSPinnedCAIdentities, the CA tier: matches; NSPinnedLeafIdentities, the leaf tier: no match; both must match)"
            ), outcome.stdout)
        XCTAssertTrue(line("one.svc.test").contains("CRITICAL blocked"), outcome.stdout)
        XCTAssertTrue(line("empty.test").contains("CRITICAL blocked"), outcome.stdout)
        XCTAssertEqual(line("two.one.svc.test"), "", "two labels below svc.test: not pinned by ios 8\n\(outcome.stdout)")

        let compiled = try fleet.run(["check", "--config", config.path, "--client", "ios 8 compiled"])
        // The summary line is cut to a width, so the longer name cuts it elsewhere.
        let perHost = { (text: String) in text.split(separator: "\n").dropFirst().joined(separator: "\n") }
        XCTAssertEqual(
            perHost(compiled.stdout.replacingOccurrences(of: "ios 8 compiled", with: "ios 8")), perHost(outcome.stdout),
            "the binary plist says what the XML one says")
        XCTAssertEqual(compiled.status, outcome.status)
    }

    func testSnapshotCarriesTheReleasesViewPerHost() throws {
        let config = try writeConfig()
        let outcome = try fleet.run(["snapshot", "--config", config.path, "--format", "json"])
        let schema = try SnapshotSchema.validate(try fleet.write(outcome.stdout, to: "ats.json").path)
        XCTAssertEqual(schema.status, 0, "the ats format is in the schema: \(schema.stderr)")
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any])
        let rows = try XCTUnwrap(document["hosts"] as? [[String: Any]])
        func statuses(_ host: String) -> [String] {
            let row = rows.first { $0["host"] as? String == host }
            return (row?["clients"] as? [[String: Any]] ?? []).filter { $0["client"] as? String == "ios 8" }.compactMap {
                $0["status"] as? String
            }
        }
        XCTAssertEqual(statuses("api.test"), ["leaf_only"])
        XCTAssertEqual(statuses("pay.test"), ["blocked"])
        XCTAssertEqual(statuses("one.svc.test"), ["blocked"])
        XCTAssertEqual(statuses("two.one.svc.test"), [])
        XCTAssertEqual(statuses("empty.test"), ["blocked"])
        XCTAssertFalse(rows.contains { $0["host"] as? String == "svc.test" }, "an NSIncludesSubdomains base is a pattern, not probed")
    }

    func testLintAndImportReadTheFile() throws {
        let config = try writeConfig()
        let lint = try fleet.run(["lint", "--config", config.path])
        // A release here refuses a host now: an error, lint's exit 4.
        XCTAssertEqual(lint.status, 4, "\(lint.stdout)\(lint.stderr)")
        XCTAssertTrue(lint.stdout.contains("NSPinnedCAIdentities: no identity: ATS refuses every chain for this domain"), lint.stdout)
        XCTAssertTrue(
            lint.stdout.contains(
                "warning: ios 8: api.test: NSPinnedLeafIdentities pins the leaf: this release breaks at the next leaf key"),
            lint.stdout)
        XCTAssertTrue(
            lint.stdout.contains(
                "warning: ios 8: pay.test: this release refuses the host (ATS NSPinnedCAIdentities, the CA tier: matches;"),
            lint.stdout)

        for file in ["Info.plist", "Info-binary.plist"] {
            let imported = try fleet.run(["import", file])
            XCTAssertEqual(imported.status, 0, imported.stderr)
            XCTAssertTrue(imported.stdout.contains("App Transport Security NSPinnedDomains, 4 rules"), imported.stdout)
            XCTAssertTrue(imported.stdout.contains("svc.test and the names one label below it"), imported.stdout)
            let pasted = try fleet.write(imported.stdout, to: "imported.yaml")
            let validate = try fleet.run(["validate", "--config", pasted.path])
            XCTAssertEqual(validate.status, 0, "the stanza loads: \(validate.stderr)\n\(imported.stdout)")
        }
    }

    /// The same issuing CA, a new leaf key: the leaf identity refuses it.
    func testPreflightOfARenewedLeafBreaksTheLeafPinnedRelease() throws {
        let config = try writeConfig()
        let renewed = try fleet.issuing.issueLeaf(commonName: "api.test", dnsNames: ["api.test"])
        let chain = try fleet.write(renewed.certificate.pem + fleet.issuing.certificate.pem, to: "renewed.pem")
        let outcome = try fleet.run(["preflight", "api.test", "--chain", chain.path, "--config", config.path])
        XCTAssertEqual(outcome.status, 2, "\(outcome.stdout)\(outcome.stderr)")
        XCTAssertTrue(outcome.stdout.contains("BREAKS ios 8"), outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("NSPinnedLeafIdentities, the leaf tier: no match"), outcome.stdout)
    }
}
