import Foundation
import PinwatchCore
import XCTest

@testable import PinwatchImport

/// Which pins decide for a host, read from each format as written and
/// checked against that library's documented rule: OkHttp unites every
/// matching pattern; Android and TrustKit take the most specific domain.
final class ClientRuleChoiceTests: XCTestCase {
    private func pins(_ imported: ImportedPins, for host: String) -> Set<Pin> {
        Set(ClientPolicy(name: "app", pins: imported).rules(for: host).flatMap(\.pins))
    }

    /// CertificatePinner's documentation: "If multiple patterns match a
    /// hostname, any match is sufficient. For example, suppose pin A applies
    /// to *.publicobject.com and pin B applies to api.publicobject.com.
    /// Handshakes for api.publicobject.com are valid if either A's or B's
    /// certificate is in the chain."
    func testOkHttpAcceptsAPinOfAnyMatchingPattern() throws {
        let imported = try PinStringImporter.read(
            """
            CertificatePinner.Builder()
                .add("*.publicobject.com", "sha256/\(ImportFixtures.base64(1))")
                .add("api.publicobject.com", "sha256/\(ImportFixtures.base64(2))")
                .add("**.publicobject.com", "sha256/\(ImportFixtures.base64(3))")
                .build()
            """, file: "Pins.kt", format: .okhttp)
        XCTAssertEqual(pins(imported, for: "api.publicobject.com"), [ImportFixtures.pin(1), ImportFixtures.pin(2), ImportFixtures.pin(3)])
        XCTAssertEqual(pins(imported, for: "www.publicobject.com"), [ImportFixtures.pin(1), ImportFixtures.pin(3)])
        XCTAssertEqual(pins(imported, for: "us-west.www.publicobject.com"), [ImportFixtures.pin(3)], "* matches exactly one label")
        XCTAssertEqual(pins(imported, for: "publicobject.com"), [ImportFixtures.pin(3)], "** matches no prefix at all too")
    }

    /// Android's network security config: when several domain-configs match,
    /// the most specific (longest) domain is used, and an exact domain wins.
    func testAndroidUsesTheMostSpecificDomainConfig() throws {
        let imported = try NetworkSecurityConfigImporter.read(
            ImportFixtures.bytes(
                """
                <network-security-config>
                  <domain-config>
                    <domain includeSubdomains="true">example.com</domain>
                    <pin-set><pin digest="SHA-256">\(ImportFixtures.base64(1))</pin></pin-set>
                  </domain-config>
                  <domain-config>
                    <domain includeSubdomains="true">eu.example.com</domain>
                    <pin-set><pin digest="SHA-256">\(ImportFixtures.base64(2))</pin></pin-set>
                  </domain-config>
                  <domain-config>
                    <domain>api.eu.example.com</domain>
                    <pin-set><pin digest="SHA-256">\(ImportFixtures.base64(3))</pin></pin-set>
                  </domain-config>
                </network-security-config>
                """), file: "network_security_config.xml")
        XCTAssertEqual(pins(imported, for: "api.eu.example.com"), [ImportFixtures.pin(3)])
        XCTAssertEqual(pins(imported, for: "cdn.eu.example.com"), [ImportFixtures.pin(2)])
        XCTAssertEqual(pins(imported, for: "www.example.com"), [ImportFixtures.pin(1)])
        XCTAssertEqual(pins(imported, for: "example.com"), [ImportFixtures.pin(1)])
    }

    /// TrustKit: a domain pinned by name uses its own policy; otherwise the
    /// most specific parent with `TSKIncludeSubdomains` decides.
    func testTrustKitUsesTheDomainItselfElseTheClosestParentWithSubdomains() throws {
        func domain(_ name: String, _ seed: UInt8, subdomains: Bool) -> String {
            "\"\(name)\": {\"TSKPublicKeyHashes\": [\"\(ImportFixtures.base64(seed))\", \"\(ImportFixtures.base64(seed + 10))\"],"
                + " \"TSKIncludeSubdomains\": \(subdomains)}"
        }
        let imported = try TrustKitImporter.read(
            ImportFixtures.bytes(
                "{\"TSKPinnedDomains\": {\(domain("example.com", 1, subdomains: true)), \(domain("eu.example.com", 2, subdomains: true)),"
                    + " \(domain("api.eu.example.com", 3, subdomains: false))}}"),
            file: "trustkit.json")
        XCTAssertEqual(pins(imported, for: "api.eu.example.com"), [ImportFixtures.pin(3), ImportFixtures.pin(13)])
        XCTAssertEqual(pins(imported, for: "cdn.eu.example.com"), [ImportFixtures.pin(2), ImportFixtures.pin(12)])
        XCTAssertEqual(
            pins(imported, for: "v2.api.eu.example.com"), [ImportFixtures.pin(2), ImportFixtures.pin(12)],
            "api.eu.example.com does not include its subdomains")
        XCTAssertEqual(pins(imported, for: "www.example.com"), [ImportFixtures.pin(1), ImportFixtures.pin(11)])
    }
}
