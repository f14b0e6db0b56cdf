import Foundation
import PinwatchCore
import XCTest

@testable import PinwatchImport

final class TrustKitImporterTests: XCTestCase {
    private let file = "Info.plist"

    private func read(_ text: String) throws -> ImportedPins {
        try TrustKitImporter.read(ImportFixtures.bytes(text), file: file)
    }

    private func error(_ bytes: [UInt8]) -> ClientSourceError? {
        ImportFixtures.error { () throws(ClientSourceError) in try TrustKitImporter.read(bytes, file: file) }
    }

    private func plist(_ domains: String) -> String {
        ImportFixtures.infoPlist(
            """
              <key>TSKConfiguration</key>
              <dict>
                <key>TSKSwizzleNetworkDelegates</key><false/>
                <key>TSKPinnedDomains</key>
                <dict>\(domains)</dict>
              </dict>
            """)
    }

    func testInfoPlistFieldsAreHonoured() throws {
        let pins = try read(
            plist(
                """
                <key>API.example.com</key>
                <dict>
                  <key>TSKPublicKeyHashes</key>
                  <array><string>\(ImportFixtures.base64(1))</string><string>\(ImportFixtures.base64(2))</string></array>
                  <key>TSKIncludeSubdomains</key><true/>
                  <key>TSKEnforcePinning</key><false/>
                  <key>TSKExpirationDate</key><string>2027-03-01</string>
                </dict>
                <key>cdn.example.com</key>
                <dict>
                  <key>TSKPublicKeyHashes</key>
                  <array><string>\(ImportFixtures.base64(3))</string><string>\(ImportFixtures.base64(4))</string></array>
                </dict>
                """))
        XCTAssertEqual(pins.format, .trustkit)
        XCTAssertEqual(pins.rules.map(\.domain), ["api.example.com", "cdn.example.com"], "names lowercased, in sorted order")
        let api = pins.rules[0]
        XCTAssertEqual(api.pins, [ImportFixtures.pin(1), ImportFixtures.pin(2)])
        XCTAssertTrue(api.includeSubdomains)
        XCTAssertFalse(api.enforced)
        XCTAssertEqual(api.expiration, Date(timeIntervalSince1970: 1_803_859_200))
        XCTAssertEqual(api.origin, "Info.plist: TSKConfiguration.TSKPinnedDomains.API.example.com")
        let cdn = pins.rules[1]
        XCTAssertFalse(cdn.includeSubdomains)
        XCTAssertTrue(cdn.enforced, "TrustKit enforces by default")
        XCTAssertNil(cdn.expiration)
        XCTAssertEqual(pins.notes.map(\.message), ["TSKEnforcePinning is false: failures are reported, not refused"])
    }

    func testAJSONExportReadsTheSame() throws {
        let pins = try TrustKitImporter.read(
            ImportFixtures.bytes(
                "\u{FEFF} {\"TSKPinnedDomains\": {\"api.example.com\": {\"TSKPublicKeyHashes\": [\"\(ImportFixtures.base64(1))\"],"
                    + " \"TSKIncludeSubdomains\": true}}}"),
            file: "trustkit.json")
        XCTAssertEqual(pins.rules.map(\.domain), ["api.example.com"])
        XCTAssertTrue(pins.rules[0].includeSubdomains)
        XCTAssertEqual(pins.rules[0].origin, "trustkit.json: TSKPinnedDomains.api.example.com", "no TSKConfiguration level")
        XCTAssertEqual(pins.notes.count, 1)
        XCTAssertTrue(pins.notes[0].message.contains("TrustKit requires at least two hashes, one a backup key"), "\(pins.notes)")
    }

    func testTheSameHashTwiceIsNotABackup() throws {
        let pins = try read(
            plist(
                "<key>a.example</key><dict><key>TSKPublicKeyHashes</key><array><string>\(ImportFixtures.base64(1))</string>"
                    + "<string>\(ImportFixtures.base64(1))</string></array></dict>"))
        XCTAssertEqual(pins.notes.count, 1, "\(pins.notes)")
    }

    func testABinaryPlistIsRefusedWithTheWayToConvertIt() {
        let binary: [UInt8] = Array("bplist00".utf8) + [0xD1, 0x01, 0x02, 0x51, 0x61, 0x51, 0x62, 0x08, 0x0B, 0x0D]
        XCTAssertEqual(
            error(binary)?.description,
            "Info.plist: a binary property list: convert it first (plutil -convert xml1 FILE, or python3 -m plistlib)")
    }

    func testBadInputNamesTheFileAndTheKeyPath() {
        let cases: [(String, String)] = [
            ("<plist version=\"1.0\"><dict><key>a</key>", "Info.plist: malformed property list"),
            ("{\"TSKPinnedDomains\": {", "Info.plist: malformed JSON"),
            ("<plist version=\"1.0\"><array/></plist>", "Info.plist: the top level is not a dictionary"),
            (plist("").replacingOccurrences(of: "TSKPinnedDomains", with: "TSKPinned"), "TSKConfiguration.TSKPinnedDomains: missing"),
            (
                plist(
                    "<key>a.example</key><dict><key>TSKPublicKeyHashes</key><array><string>\(ImportFixtures.base64(1))</string>"
                        + "<string>\(ImportFixtures.base64(2, count: 31))</string></array></dict>"),
                "TSKPinnedDomains.a.example.TSKPublicKeyHashes[1]: \"\(ImportFixtures.base64(2, count: 31))\": digest is 31 bytes"
            ),
            (
                plist("<key>a.example</key><dict><key>TSKPublicKeyHashes</key><array><integer>7</integer></array></dict>"),
                "TSKPublicKeyHashes[0]: is not a string"
            ),
            (
                plist(
                    "<key>a.example</key><dict><key>TSKPublicKeyHashes</key><array/><key>TSKExpirationDate</key>"
                        + "<string>soon</string></dict>"),
                "a.example.TSKExpirationDate: expected a yyyy-MM-dd date"
            ),
            (plist("<key>not a host</key><dict><key>TSKPublicKeyHashes</key><array/></dict>"), "\"not a host\" is not a host name"),
            (plist("<key>a.example</key><dict/>"), "a.example.TSKPublicKeyHashes: missing or not an array"),
        ]
        for (text, expected) in cases {
            let failure = error(ImportFixtures.bytes(text))
            XCTAssertTrue(failure?.description.contains(expected) == true, "expected \(expected) in \(String(describing: failure))")
        }
    }

    /// A plist's standard DOCTYPE is fine; an internal entity is not.
    func testEntitiesInAPlistAreRefused() {
        let laughs = """
            <?xml version="1.0"?>
            <!DOCTYPE plist [
            <!ENTITY lol "lollollollollollollol">
            ]>
            <plist version="1.0"><dict><key>TSKPinnedDomains</key><dict><key>&lol;</key><dict/></dict></dict></plist>
            """
        XCTAssertEqual(
            error(ImportFixtures.bytes(laughs))?.description,
            "Info.plist:3: <!ENTITY is not allowed: entities are neither expanded nor fetched")
    }
}
