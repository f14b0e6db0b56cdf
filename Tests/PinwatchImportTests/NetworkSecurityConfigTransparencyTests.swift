import Foundation
import PinwatchCore
import XCTest

@testable import PinwatchImport

/// `<certificateTransparency enabled=…>` in a network security config: a
/// domain's own element beats its parent's, which beats base-config's; a
/// domain-config without pins but with CT required still decides its hosts.
final class NetworkSecurityConfigTransparencyTests: XCTestCase {
    private let file = "res/xml/network_security_config.xml"

    private let document = """
        <?xml version="1.0" encoding="utf-8"?>
        <network-security-config>
          <base-config cleartextTrafficPermitted="false">
            <certificateTransparency enabled="true" />
          </base-config>
          <domain-config>
            <domain>api.example.com</domain>
            <pin-set><pin digest="SHA-256">\(ImportFixtures.base64(1))</pin></pin-set>
            <domain-config>
              <domain>legacy.example.com</domain>
              <certificateTransparency enabled="false"/>
              <domain-config>
                <domain>old.legacy.example.com</domain>
              </domain-config>
            </domain-config>
          </domain-config>
          <domain-config>
            <domain>cdn.example.com</domain>
          </domain-config>
          <domain-config>
            <domain>intranet.example.com</domain>
            <certificateTransparency enabled="false"/>
          </domain-config>
        </network-security-config>
        """

    private func read(_ bytes: [UInt8]) throws -> ImportedPins {
        try NetworkSecurityConfigImporter.read(bytes, file: file)
    }

    private func transparency(_ pins: ImportedPins) -> [String: Bool?] {
        Dictionary(uniqueKeysWithValues: pins.rules.map { ($0.domain, $0.certificateTransparency) })
    }

    func testADomainOverridesItsParentAndBaseConfig() throws {
        let pins = try read(ImportFixtures.bytes(document))
        XCTAssertEqual(
            transparency(pins),
            [
                "api.example.com": true, "legacy.example.com": false, "old.legacy.example.com": false,
                // No pins, but the app refuses a leaf without SCTs there.
                "cdn.example.com": true,
            ])
        XCTAssertEqual(pins.rules.first { $0.domain == "cdn.example.com" }?.pins, [])
        XCTAssertEqual(pins.rules.first { $0.domain == "old.legacy.example.com" }?.pins, [ImportFixtures.pin(1)])
    }

    func testWithoutTheElementTheReleaseDecides() throws {
        let pins = try read(
            ImportFixtures.bytes(
                """
                <network-security-config>
                  <domain-config><domain>api.example.com</domain>
                    <pin-set><pin digest="SHA-256">\(ImportFixtures.base64(1))</pin></pin-set></domain-config>
                  <domain-config><domain>cdn.example.com</domain></domain-config>
                </network-security-config>
                """))
        XCTAssertEqual(pins.rules.map(\.domain), ["api.example.com"])
        XCTAssertNil(pins.rules[0].certificateTransparency)
        var release = ClientPolicy(name: "android 7", pins: pins)
        XCTAssertFalse(release.requiresCT(under: release.rules(for: "api.example.com")))
        release.ctRequired = true
        XCTAssertTrue(release.requiresCT(under: release.rules(for: "api.example.com")))
        let explicit = ClientPolicy(name: "android 7", pins: try read(ImportFixtures.bytes(document)))
        var targeting37 = explicit
        targeting37.ctRequired = true
        XCTAssertFalse(targeting37.requiresCT(under: targeting37.rules(for: "legacy.example.com")), "enabled=false wins")
        XCTAssertTrue(explicit.requiresCT(under: explicit.rules(for: "cdn.example.com")))
    }

    /// `pinwatch import` carries the requirement: JSON per rule, and the
    /// `clients:` hint names the domains and the log list they need.
    func testImportSaysWhichDomainsRequireIt() throws {
        let pins = try read(ImportFixtures.bytes(document))
        let yaml = ImportReport.yaml([pins])
        XCTAssertTrue(
            yaml.contains(
                "#     requires Certificate Transparency for api.example.com, cdn.example.com: give ct: {logs: built-in} (or a log list file) so their SCTs are checked"
            ), yaml)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(ImportReport.json([pins]).utf8)) as? [String: Any])
        let rules = try XCTUnwrap((json["sources"] as? [[String: Any]])?.first?["rules"] as? [[String: Any]])
        let flags = Dictionary(uniqueKeysWithValues: rules.map { ($0["domain"] as! String, $0["certificate_transparency"] as? Bool) })
        XCTAssertEqual(
            flags,
            ["api.example.com": true, "legacy.example.com": false, "old.legacy.example.com": false, "cdn.example.com": true])
    }

    func testCRLFAndAByteOrderMarkReadTheSame() throws {
        let plain = try read(ImportFixtures.bytes(document))
        let crlf = [0xEF, 0xBB, 0xBF] + ImportFixtures.bytes(document.replacingOccurrences(of: "\n", with: "\r\n"))
        XCTAssertEqual(try read(crlf).rules, plain.rules)
    }

    func testABadOrMisplacedElementIsRefusedWithItsLine() {
        let cases: [(String, String)] = [
            (
                "<domain-config><domain>a.test</domain><certificateTransparency/></domain-config>",
                "line 2: <certificateTransparency> without enabled=\"true\" or \"false\""
            ),
            (
                "<domain-config><domain>a.test</domain><certificateTransparency enabled=\"yes\"/></domain-config>",
                "line 2: certificateTransparency enabled=\"yes\" is not true or false"
            ),
            ("<certificateTransparency enabled=\"true\"/>", "line 2: <certificateTransparency> outside <base-config> and <domain-config>"),
            (
                "<base-config><certificateTransparency enabled=\"true\"/><certificateTransparency enabled=\"false\"/></base-config>",
                "line 2: a second <certificateTransparency> in <base-config>"
            ),
        ]
        for (body, expected) in cases {
            let error = ImportFixtures.error { () throws(ClientSourceError) in
                try NetworkSecurityConfigImporter.read(
                    ImportFixtures.bytes("<network-security-config>\n\(body)\n</network-security-config>"), file: file)
            }
            XCTAssertEqual(error.map { "line \($0.line ?? 0): \($0.message)" }, expected, body)
        }
    }
}
