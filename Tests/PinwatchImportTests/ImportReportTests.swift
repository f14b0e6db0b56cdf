import Foundation
import PinwatchCore
import XCTest
import Yams

@testable import PinwatchImport

final class ImportReportTests: XCTestCase {
    private func sources() throws -> [ImportedPins] {
        let nsc = try NetworkSecurityConfigImporter.read(
            ImportFixtures.bytes(
                """
                <network-security-config><domain-config>
                <domain includeSubdomains="true">api.example.com</domain>
                <pin-set expiration="2027-03-01"><pin digest="SHA-256">\(ImportFixtures.base64(1))</pin>
                <pin digest="SHA-256">\(ImportFixtures.base64(2))</pin></pin-set>
                </domain-config></network-security-config>
                """), file: "nsc.xml")
        let okhttp = try PinStringImporter.read(
            ".add(\"api.example.com\", \"sha256/\(ImportFixtures.base64(2))\", \"sha256/\(ImportFixtures.base64(3))\")\n"
                + ".add(\"*.cdn.example.com\", \"sha256/\(ImportFixtures.base64(4))\")",
            file: "Pins.kt", format: .okhttp)
        return [nsc, okhttp]
    }

    /// The stanza is meant to be pasted: it must load as a configuration
    /// with the pins under `auto:`, merged per domain across files.
    func testTheYAMLStanzaLoadsAsAConfiguration() throws {
        let yaml = ImportReport.yaml(try sources())
        let config = try ConfigLoader(certificateDigests: { _ in [] }).load(yaml: yaml, path: "/tmp/imported.yaml")
        XCTAssertEqual(config.hosts.map(\.serverName), ["api.example.com"], "a pattern is not a host")
        let api = try XCTUnwrap(config.hosts.first { $0.serverName == "api.example.com" })
        XCTAssertEqual(api.pins.auto.map(\.text), (1...3).map { ImportFixtures.pin($0).text }, "one pinset, pins of both files")
        XCTAssertEqual(api.pins.ca, [])
        XCTAssertEqual(api.pins.leaf, [])
        XCTAssertTrue(yaml.contains("# *.cdn.example.com is a pattern: list the hosts it covers"), yaml)
        XCTAssertTrue(yaml.contains("api.example.com and its subdomains, from nsc.xml:2, Pins.kt:1; pins expire 2027-03-01"), yaml)
        XCTAssertTrue(yaml.contains("#   - {name: \"<release>\", nsc: nsc.xml}"), yaml)
    }

    /// A base only an `includeSubdomains` rule names is a pattern, as under
    /// `clients:`: pasted as a host it would be probed, and may not resolve.
    func testASubdomainsBaseIsNotPastedAsAHost() throws {
        let nsc = try NetworkSecurityConfigImporter.read(
            ImportFixtures.bytes(
                """
                <network-security-config><domain-config>
                <domain includeSubdomains="true">example.com</domain>
                <domain>api.example.com</domain>
                <pin-set><pin digest="SHA-256">\(ImportFixtures.base64(1))</pin><pin digest="SHA-256">\(ImportFixtures.base64(2))</pin></pin-set>
                </domain-config></network-security-config>
                """), file: "nsc.xml")
        let yaml = ImportReport.yaml([nsc])
        let config = try ConfigLoader(certificateDigests: { _ in [] }).load(yaml: yaml, path: "/tmp/imported.yaml")
        XCTAssertEqual(config.hosts.map(\.serverName), ["api.example.com"], yaml)
        XCTAssertTrue(yaml.contains("# example.com and its subdomains is a pattern: list the hosts the app calls"), yaml)
    }

    func testNamesFromFilesCannotLeaveTheirCommentOrReachTheTerminalRaw() throws {
        var hostile = try sources()
        hostile[0].file = "nsc\u{1B}[2J\nhosts: []\n.xml"
        hostile[0].rules[0].origin = hostile[0].file + ":2"
        let yaml = ImportReport.yaml(hostile)
        XCTAssertFalse(yaml.unicodeScalars.contains { $0.value == 0x1B }, yaml)
        XCTAssertFalse(yaml.contains("\nhosts: []"), "a newline in a name would start a key: \(yaml)")
        XCTAssertNoThrow(try ConfigLoader(certificateDigests: { _ in [] }).load(yaml: yaml, path: "/tmp/imported.yaml"))
    }

    /// Names and notes from a file end no line, whatever line break YAML
    /// knows they carry (U+2028, U+2029, NEL): the stanza holds exactly the
    /// pin sets and hosts it meant to, and nothing outside printable ASCII.
    func testNamesFromFilesAddNoKeysWithAnyLineBreakYAMLKnows() throws {
        for separator in ["\u{2028}", "\u{2029}", "\u{85}"] {
            let payload = ["x.xml", "probe_targets: any", "hooks:", "  - - /bin/sh", "    - -c", "    - touch PWNED", "#"]
                .joined(separator: separator)
            var hostile = try sources()
            hostile[0].file = payload
            hostile[0].rules[0].origin = payload + ":2"
            hostile[0].notes.append(ClientSourceNote(origin: payload, message: payload))
            let yaml = ImportReport.yaml(hostile)
            XCTAssertTrue(yaml.utf8.allSatisfy { ($0 >= 0x20 && $0 <= 0x7E) || $0 == 0x0A }, yaml)
            let document = try XCTUnwrap(Yams.load(yaml: yaml) as? [String: Any], yaml)
            XCTAssertEqual(document.keys.sorted(), ["hosts", "pinsets"], yaml)
            XCTAssertEqual((document["pinsets"] as? [String: Any])?.keys.sorted(), ["*.cdn.example.com", "api.example.com"], yaml)
            let hosts = try XCTUnwrap(document["hosts"] as? [[String: Any]], yaml)
            XCTAssertEqual(hosts.map { $0.keys.sorted() }, [["host", "pinset"]], yaml)
            let config = try ConfigLoader(certificateDigests: { _ in [] }).load(yaml: yaml, path: "/tmp/imported.yaml")
            XCTAssertEqual(config.hooks.count, 0)
        }
    }

    func testJSONListsEverySourceRuleAndNote() throws {
        let json = ImportReport.json(try sources())
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        XCTAssertEqual(document["version"] as? Int, 1)
        let listed = try XCTUnwrap(document["sources"] as? [[String: Any]])
        XCTAssertEqual(listed.map { $0["format"] as? String }, ["nsc", "okhttp"])
        let rule = try XCTUnwrap((listed[0]["rules"] as? [[String: Any]])?.first)
        XCTAssertEqual(rule["domain"] as? String, "api.example.com")
        XCTAssertEqual(rule["include_subdomains"] as? Bool, true)
        XCTAssertEqual(rule["expiration"] as? String, "2027-03-01T00:00:00Z")
        XCTAssertEqual((rule["pins"] as? [String])?.count, 2)
        XCTAssertEqual(rule["origin"] as? String, "nsc.xml:2")
    }
}
