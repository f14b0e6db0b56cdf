import Foundation
import PinwatchCore
import XCTest

@testable import PinwatchImport

final class NetworkSecurityConfigImporterTests: XCTestCase {
    private let file = "res/xml/network_security_config.xml"

    private func read(_ xml: String) throws -> ImportedPins {
        try NetworkSecurityConfigImporter.read(ImportFixtures.bytes(xml), file: file)
    }

    private func error(_ xml: String) -> ClientSourceError? {
        ImportFixtures.error { () throws(ClientSourceError) in try NetworkSecurityConfigImporter.read(ImportFixtures.bytes(xml), file: file)
        }
    }

    func testNestedConfigsInheritTheParentsPinSetUnlessTheyHaveTheirOwn() throws {
        let pins = try read(
            """
            <?xml version="1.0" encoding="utf-8"?>
            <network-security-config>
              <domain-config>
                <domain includeSubdomains="true">example.com</domain>
                <pin-set expiration="2027-03-01">
                  <pin digest="SHA-256">\(ImportFixtures.base64(1))</pin>
                  <pin digest="SHA-256">\(ImportFixtures.base64(2))</pin>
                </pin-set>
                <domain-config>
                  <domain>api.example.com</domain>
                </domain-config>
                <domain-config>
                  <domain>legacy.example.com</domain>
                  <pin-set><pin digest="SHA-256">\(ImportFixtures.base64(3))</pin></pin-set>
                </domain-config>
              </domain-config>
            </network-security-config>
            """)
        XCTAssertEqual(pins.format, .nsc)
        XCTAssertEqual(pins.rules.map(\.domain), ["example.com", "api.example.com", "legacy.example.com"])
        XCTAssertEqual(pins.rules.map(\.includeSubdomains), [true, false, false])
        XCTAssertEqual(pins.rules[1].pins, [ImportFixtures.pin(1), ImportFixtures.pin(2)], "inherited from the parent")
        XCTAssertEqual(pins.rules[1].expiration, pins.rules[0].expiration, "the expiration comes with the inherited set")
        XCTAssertEqual(pins.rules[2].pins, [ImportFixtures.pin(3)], "its own pin-set replaces the parent's")
        XCTAssertNil(pins.rules[2].expiration)
        XCTAssertEqual(pins.rules[0].expiration, Date(timeIntervalSince1970: 1_803_859_200), "2027-03-01T00:00:00Z")
        XCTAssertEqual(pins.rules.map(\.origin), ["\(file):4", "\(file):10", "\(file):13"])
    }

    /// What the parser must decode as Android's own does: character and
    /// predefined references in attributes and text, and an empty element
    /// (`<domain-config/>`-style) that opens and closes at once.
    func testReferencesAreDecodedAndEmptyElementsClose() throws {
        let pins = try read(
            """
            <network-security-config>
              <domain-config>
                <domain includeSubdomains="tr&#117;e">api.example&#46;com</domain>
                <pin-set><pin digest="SHA&#x2D;256">\(ImportFixtures.base64(1))</pin></pin-set>
              </domain-config>
              <domain-config><domain>b.example.com</domain><pin-set/></domain-config>
            </network-security-config>
            """)
        XCTAssertEqual(pins.rules.map(\.domain), ["api.example.com", "b.example.com"])
        XCTAssertEqual(pins.rules.map(\.includeSubdomains), [true, false])
        XCTAssertEqual(pins.rules[0].pins, [ImportFixtures.pin(1)])
        XCTAssertEqual(pins.rules[1].pins, [], "an empty pin-set element is a pin-set of its own, with no pins")
        XCTAssertEqual(
            error("<network-security-config><domain-config><domain>a&amp;b&#47;c</domain></domain-config></network-security-config>")?
                .message, "domain \"a&b/c\" is not a host name")
    }

    func testDebugOverridesAreIgnoredAndOverridePinsIsNoted() throws {
        let pins = try read(
            """
            <network-security-config>
              <base-config>
                <trust-anchors>
                  <certificates src="system"/>
                  <certificates src="user" overridePins="true"/>
                </trust-anchors>
              </base-config>
              <domain-config>
                <domain>api.example.com</domain>
                <pin-set><pin digest="SHA-256">\(ImportFixtures.base64(1))</pin></pin-set>
              </domain-config>
              <debug-overrides>
                <domain-config>
                  <domain>debug.example.com</domain>
                  <pin-set><pin digest="SHA-256">\(ImportFixtures.base64(9))</pin></pin-set>
                </domain-config>
              </debug-overrides>
            </network-security-config>
            """)
        XCTAssertEqual(pins.rules.map(\.domain), ["api.example.com"], "release builds do not read debug-overrides")
        XCTAssertEqual(pins.notes.count, 1)
        XCTAssertEqual(pins.notes.first?.origin, "\(file):5")
        XCTAssertTrue(pins.notes.first?.message.contains("a user-installed proxy CA is accepted") == true, "\(pins.notes)")
    }

    func testADomainConfigWithoutPinsYieldsNoRule() throws {
        let pins = try read(
            "<network-security-config><domain-config cleartextTrafficPermitted=\"false\"><domain>plain.example.com</domain>"
                + "</domain-config></network-security-config>")
        XCTAssertEqual(pins.rules, [], "a domain that is not pinned is not a pinned host")
    }

    func testBadInputNamesTheFileAndLine() {
        let cases: [(String, String)] = [
            ("<network-security-config>\n<domain-config>\n<domain>a.example</domain>\n</network-security-config>", ":4: malformed XML"),
            (
                "<network-security-config>\n<domain-config><domain>a.example</domain>\n<pin-set>\n<pin digest=\"SHA-1\">AAAA</pin>"
                    + "</pin-set></domain-config></network-security-config>",
                ":4: unknown digest \"SHA-1\" (Android supports SHA-256 only)"
            ),
            (
                "<network-security-config><domain-config><domain>a.example</domain>\n<pin-set>\n"
                    + "<pin digest=\"SHA-256\">\(ImportFixtures.base64(1, count: 20))</pin></pin-set></domain-config></network-security-config>",
                ":3: pin \"\(ImportFixtures.base64(1, count: 20))\": digest is 20 bytes, a SHA-256 digest is 32"
            ),
            (
                "<network-security-config><domain-config><domain>a.example</domain>\n<pin-set expiration=\"next year\"/>"
                    + "</domain-config></network-security-config>",
                ":2: expiration \"next year\" is not a yyyy-MM-dd date"
            ),
            (
                "<network-security-config>\n<domain-config>\n</domain-config></network-security-config>",
                ":2: <domain-config> without a <domain>"
            ),
            (
                "<network-security-config><domain-config>\n<domain>bad host!</domain></domain-config></network-security-config>",
                ":2: domain"
            ),
            ("<plist><dict/></plist>", ": no <network-security-config> element"),
        ]
        for (xml, expected) in cases {
            let failure = error(xml)
            XCTAssertNotNil(failure, expected)
            XCTAssertTrue(failure?.description.hasPrefix(file) == true, "\(String(describing: failure))")
            XCTAssertTrue(failure?.description.contains(expected) == true, "expected \(expected) in \(String(describing: failure))")
        }
    }

    /// Billion laughs and XXE: refused before the parser sees them, so
    /// nothing is expanded and nothing is fetched.
    func testEntityDeclarationsAreRefusedNotExpandedOrFetched() throws {
        let laughs = """
            <?xml version="1.0"?>
            <!DOCTYPE lolz [
             <!ENTITY lol "lol">
             <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
             <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
            ]>
            <network-security-config><domain-config><domain>&lol2;</domain></domain-config></network-security-config>
            """
        XCTAssertEqual(
            error(laughs)?.description,
            "\(file):2: <!DOCTYPE is not allowed: entities are neither expanded nor fetched (remove the DTD)")

        // An external entity pointing at a file that would be read if it were fetched.
        let secret = FileManager.default.temporaryDirectory.appendingPathComponent("pinwatch-xxe-\(UUID().uuidString)")
        try "secret.example.com".write(to: secret, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: secret) }
        let external = """
            <?xml version="1.0"?>
            <!DOCTYPE network-security-config [ <!ENTITY xxe SYSTEM "\(secret.absoluteString)"> ]>
            <network-security-config><domain-config><domain>&xxe;</domain>
            <pin-set><pin digest="SHA-256">\(ImportFixtures.base64(1))</pin></pin-set></domain-config></network-security-config>
            """
        let refused = error(external)
        XCTAssertTrue(refused?.description.contains(":2: <!DOCTYPE is not allowed") == true, "\(String(describing: refused))")
        XCTAssertFalse(refused?.description.contains("secret.example.com") == true)

        // Markup FoundationXML mishandles, found by fuzzing, and control bytes.
        XCTAssertEqual(
            error("<network-security-config>\n<?x?></network-security-config>")?.description,
            "\(file):2: processing instructions are not allowed (only the <?xml …?> declaration, first)")
        XCTAssertTrue(error("<a/>\n<?xml version=\"1.0\"?>")?.description.contains(":2: processing instructions") == true)
        XCTAssertTrue(error("<a>\n\u{0}</a>")?.description.contains(":2: control byte 0x0 is not allowed in XML") == true)
        XCTAssertTrue(error("<a><![CDATA[x]]></a>")?.description.contains("<! markup other than a comment is not allowed") == true)
        XCTAssertNotNil(
            try? read("<?xml version=\"1.0\"?><!-- <?x?> <!DOCTYPE in a comment --><network-security-config/>"),
            "a comment may mention anything")

        // An entity without a DOCTYPE line is still found where it is.
        let bare = "<network-security-config>\n\n<!ENTITY x \"y\"></network-security-config>"
        XCTAssertTrue(error(bare)?.description.contains(":3: <!ENTITY is not allowed") == true)
    }

    /// Bytes that are not UTF-8 in an element name made FoundationXML trap
    /// (a fuzzing finding, kept in Fuzz/corpus/nsc): refused before parsing.
    func testBytesThatAreNotUTF8AreRefusedWithTheirLine() {
        let bytes =
            ImportFixtures.bytes("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<network-security-config>\n  <p") + [0xFE, 0xFE]
            + ImportFixtures.bytes("/>\n</network-security-config>")
        let failure = ImportFixtures.error { () throws(ClientSourceError) in try NetworkSecurityConfigImporter.read(bytes, file: file) }
        XCTAssertEqual(failure?.description, "\(file):3: not UTF-8 text (Android reads this file as UTF-8)")
    }

    /// libxml2 compares attributes pairwise: 100,000 on one element took
    /// 15.5 s, and `watch`/`serve` re-read client files on change.
    func testAnElementWithThousandsOfAttributesIsRefusedQuickly() {
        let attributes = (0..<50_000).map { "a\($0)=\"x\"" }.joined(separator: " ")
        let bytes = ImportFixtures.bytes(
            "<network-security-config>\n<domain-config \(attributes)><domain>a.example</domain></domain-config></network-security-config>")
        let started = ContinuousClock.now
        let failure = ImportFixtures.error { () throws(ClientSourceError) in try NetworkSecurityConfigImporter.read(bytes, file: file) }
        let elapsed = ContinuousClock.now - started
        XCTAssertEqual(
            failure?.description, "\(file):2: an element with more than 16 attributes (Android's have at most two)")
        XCTAssertLessThan(elapsed, .seconds(2), "one pass over the bytes, not a pairwise comparison")
    }

    func testTheAttributesAndroidStudioAddsStillRead() throws {
        let pins = try read(
            """
            <network-security-config xmlns:tools="http://schemas.android.com/tools" tools:ignore="UnusedAttribute">
              <domain-config cleartextTrafficPermitted='false' tools:targetApi="24">
                <domain includeSubdomains="true">example.com</domain>
                <pin-set expiration="2027-03-01" note="a > in a value"><pin digest="SHA-256">\(ImportFixtures.base64(1))</pin></pin-set>
              </domain-config>
            </network-security-config>
            """)
        XCTAssertEqual(pins.rules.map(\.domain), ["example.com"])
        XCTAssertTrue(pins.rules[0].includeSubdomains)
    }

    func testHugeElementTextIsRefusedNotAccumulated() {
        let long = String(repeating: "a", count: 10_000)
        let failure = error("<network-security-config><domain-config><domain>\(long)</domain></domain-config></network-security-config>")
        XCTAssertTrue(failure?.description.contains("element text longer than 4 KiB") == true, "\(String(describing: failure))")
    }
}
