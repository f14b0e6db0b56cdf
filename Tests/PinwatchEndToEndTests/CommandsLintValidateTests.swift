import Foundation
import XCTest

/// `lint --format json` for CI, and `validate` on a configuration that
/// would monitor nothing.
final class CommandsLintValidateTests: LocalFleetTestCase {

    func testLintJSONCarriesTheFindingsAndTheExitCodeOfTheText() throws {
        let api = try fleet.addLeafOnly("api.test")
        let leaf = try XCTUnwrap(api.leaf.first)
        try fleet.write(
            "<network-security-config><domain-config><domain>api.test</domain><pin-set>"
                + "<pin digest=\"SHA-256\">\(leaf.dropFirst("sha256/".count))</pin>"
                + "</pin-set></domain-config></network-security-config>", to: "nsc-json.xml")
        let config = try fleet.writeConfig(settings: ["clients:", "  - {name: android 6, nsc: nsc-json.xml}"], only: [api])

        let text = try fleet.run(["lint", "--config", config.path])
        let json = try fleet.run(["lint", "--config", config.path, "--format", "json"])
        XCTAssertEqual(json.status, 1, json.stdout + json.stderr)
        XCTAssertEqual(json.status, text.status)
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], json.stdout)
        XCTAssertEqual(document["clients"] as? Int, 1)
        XCTAssertEqual(document["hosts"] as? Int, 1)
        XCTAssertEqual(document["nothing_checked"] as? Bool, false)
        let findings = try XCTUnwrap(document["findings"] as? [[String: Any]])
        XCTAssertEqual(document["warnings"] as? Int, findings.filter { $0["level"] as? String == "warning" }.count)
        XCTAssertEqual(document["errors"] as? Int, 0)
        XCTAssertEqual(
            (document["errors"] as? Int ?? 0) + (document["warnings"] as? Int ?? 0) + (document["notes"] as? Int ?? 0), findings.count)
        let leafOnly = try XCTUnwrap(findings.first { ($0["message"] as? String ?? "").contains("only the leaf matches") }, json.stdout)
        XCTAssertEqual(leafOnly["level"] as? String, "warning")
        XCTAssertEqual(leafOnly["client"] as? String, "android 6")
        XCTAssertEqual(leafOnly["subject"] as? String, "api.test")
        for finding in findings {
            let line = "\(finding["level"]!): \(finding["client"]!): \(finding["subject"]!): \(finding["message"]!)"
            XCTAssertTrue(text.stdout.contains(line), "the text says the same: \(line)\n\(text.stdout)")
        }
    }

    /// A release that refuses a host now is not advice: an error, listed
    /// before every warning, with an exit code of its own (4) in both
    /// formats, whatever warnings come with it.
    func testAReleaseThatRefusesAHostNowIsAnErrorListedFirstWithItsOwnExitCode() throws {
        let api = try fleet.addLeafOnly("api.test")
        let leaf = try XCTUnwrap(api.leaf.first)
        let stranger = LocalFleet.pin(fleet.otherIssuing.certificate)
        func nsc(_ pins: [String]) -> String {
            "<network-security-config><domain-config><domain>api.test</domain><pin-set>"
                + pins.map { "<pin digest=\"SHA-256\">\($0.dropFirst("sha256/".count))</pin>" }.joined()
                + "</pin-set></domain-config></network-security-config>"
        }
        try fleet.write(nsc([leaf]), to: "leaf-only.xml")
        try fleet.write(nsc([stranger]), to: "stranger.xml")
        let config = try fleet.writeConfig(
            settings: ["clients:", "  - {name: android 6, nsc: leaf-only.xml}", "  - {name: android 7, nsc: stranger.xml}"], only: [api])

        let text = try fleet.run(["lint", "--config", config.path])
        XCTAssertEqual(text.status, 4, text.stdout + text.stderr)
        let lines = text.stdout.split(separator: "\n").map(String.init)
        let first = lines.first ?? ""
        XCTAssertTrue(
            first.hasPrefix("error: android 7: api.test: no pin matches the live chain: this release refuses the host now (")
                && first.hasSuffix("stranger.xml:1)"), text.stdout)
        XCTAssertTrue(lines.dropFirst().contains { $0.hasPrefix("warning: android 6: api.test: only the leaf matches") }, text.stdout)
        XCTAssertFalse(lines.dropFirst().contains { $0.hasPrefix("error:") }, text.stdout)
        XCTAssertTrue(text.stdout.contains("2 clients, 1 host: 1 error, "), text.stdout)

        let json = try fleet.run(["lint", "--config", config.path, "--format", "json"])
        XCTAssertEqual(json.status, 4, json.stdout + json.stderr)
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], json.stdout)
        XCTAssertEqual(document["errors"] as? Int, 1)
        let findings = try XCTUnwrap(document["findings"] as? [[String: Any]])
        XCTAssertEqual(findings.first?["level"] as? String, "error")
        XCTAssertEqual(findings.first?["client"] as? String, "android 7")
    }

    func testValidateWarnsOfAConfigurationWithNoHostsUnlessAllowed() throws {
        let empty = try fleet.writeConfig(only: [], name: "empty.yaml")
        let warned = try fleet.run(["validate", "--config", empty.path])
        XCTAssertEqual(warned.status, 1, warned.stdout + warned.stderr)
        XCTAssertTrue(warned.stderr.contains("has no hosts: nothing would be monitored (--allow-empty to accept)"), warned.stderr)

        let allowed = try fleet.run(["validate", "--config", empty.path, "--allow-empty"])
        XCTAssertEqual(allowed.status, 0, allowed.stderr)
        XCTAssertEqual(allowed.stderr, "")
        XCTAssertTrue(allowed.stdout.contains("valid, 0 hosts"), allowed.stdout)

        try fleet.addOK("ok.test")
        let one = try fleet.run(["validate", "--config", try fleet.writeConfig(name: "one.yaml").path])
        XCTAssertEqual(one.status, 0, one.stderr)
    }
}
