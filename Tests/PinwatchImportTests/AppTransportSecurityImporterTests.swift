import Foundation
import PinwatchCore
import XCTest

@testable import PinwatchImport

final class AppTransportSecurityImporterTests: XCTestCase {
    private let file = "Info.plist"

    private func read(_ bytes: [UInt8]) throws -> ImportedPins {
        try AppTransportSecurityImporter.read(bytes, file: file)
    }

    private func identity(_ seed: UInt8) -> String {
        "<dict><key>SPKI-SHA256-BASE64</key><string>\(ImportFixtures.base64(seed))</string></dict>"
    }

    private func plist(_ domains: String) -> String {
        ImportFixtures.infoPlist(
            """
              <key>NSAppTransportSecurity</key>
              <dict>
                <key>NSAllowsArbitraryLoads</key><false/>
                <key>NSPinnedDomains</key>
                <dict>\(domains)</dict>
              </dict>
            """)
    }

    private var twoDomains: String {
        plist(
            """
            <key>API.example.com</key>
            <dict>
              <key>NSPinnedCAIdentities</key><array>\(identity(2))\(identity(3))</array>
              <key>NSPinnedLeafIdentities</key><array>\(identity(1))</array>
            </dict>
            <key>example.com</key>
            <dict>
              <key>NSIncludesSubdomains</key><true/>
              <key>NSPinnedCAIdentities</key><array>\(identity(3))</array>
            </dict>
            """)
    }

    func testEachDomainKeepsItsTwoListsApart() throws {
        let pins = try read(ImportFixtures.bytes(twoDomains))
        XCTAssertEqual(pins.format, .ats)
        XCTAssertEqual(pins.rules.map(\.domain), ["api.example.com", "example.com"])
        let api = pins.rules[0]
        XCTAssertEqual(api.identities?.ca, [ImportFixtures.pin(2), ImportFixtures.pin(3)])
        XCTAssertEqual(api.identities?.leaf, [ImportFixtures.pin(1)])
        XCTAssertFalse(api.includeSubdomains)
        XCTAssertEqual(api.origin, "Info.plist: NSAppTransportSecurity.NSPinnedDomains.API.example.com")
        let parent = pins.rules[1]
        XCTAssertTrue(parent.includeSubdomains)
        XCTAssertNil(parent.identities?.leaf, "an absent list is no check, not an empty one")
        XCTAssertEqual(pins.notes, [])
    }

    func testCRLFAndAByteOrderMarkReadTheSame() throws {
        let plain = try read(ImportFixtures.bytes(twoDomains))
        let crlf = twoDomains.replacingOccurrences(of: "\n", with: "\r\n")
        XCTAssertEqual(try read([0xEF, 0xBB, 0xBF] + ImportFixtures.bytes(crlf)).rules, plain.rules)
        XCTAssertEqual(ClientSourceLoader.detect([0xEF, 0xBB, 0xBF] + ImportFixtures.bytes(crlf)), .ats)
    }

    /// Written by Python's plistlib (`FMT_BINARY`), as Xcode writes a
    /// compiled Info.plist: api.example.com with NSIncludesSubdomains, CA
    /// identity 2, leaf identity 1.
    private let binary = Array(
        Data(
            base64Encoded:
                "YnBsaXN0MDDSAQIDBFxDRkJ1bmRsZU5hbWVfEBZOU0FwcFRyYW5zcG9ydFNlY3VyaXR5VFNob3DRBQZfEA9OU1Bpbm5lZERvbWFpbnPRBwhfEA9hcGkuZXhhbXBsZS5jb23TCQoLDA0RXxAUTlNJbmNsdWRlc1N1YmRvbWFpbnNfEBROU1Bpbm5lZENBSWRlbnRpdGllc18QFk5TUGlubmVkTGVhZklkZW50aXRpZXMJoQ7RDxBfEBJTUEtJLVNIQTI1Ni1CQVNFNjRfECxBZ0lDQWdJQ0FnSUNBZ0lDQWdJQ0FnSUNBZ0lDQWdJQ0FnSUNBZ0lDQWdJPaES0Q8TXxAsQVFFQkFRRUJBUUVCQVFFQkFRRUJBUUVCQVFFQkFRRUJBUUVCQVFFQkFRRT0ACAANABoAMwA4ADsATQBQAGIAaQCAAJcAsACxALMAtgDLAPoA/AD/AAAAAAAAAgEAAAAAAAAAFAAAAAAAAAAAAAAAAAAAAS4="
        )!)

    func testABinaryPlistIsRead() throws {
        XCTAssertEqual(ClientSourceLoader.detect(binary), .ats)
        let pins = try read(binary)
        XCTAssertEqual(pins.rules.map(\.domain), ["api.example.com"])
        XCTAssertEqual(pins.rules[0].identities, PinnedIdentities(ca: [ImportFixtures.pin(2)], leaf: [ImportFixtures.pin(1)]))
        XCTAssertTrue(pins.rules[0].includeSubdomains)
    }

    func testWhatTheSecurityFrameworkSkipsIsSkippedWithANote() throws {
        let pins = try read(
            ImportFixtures.bytes(
                plist(
                    """
                    <key>api.example.com</key>
                    <dict>
                      <key>NSIncludesSubdomains</key><string>YES</string>
                      <key>NSPinnedCAIdentities</key>
                      <array>\(identity(2))<string>\(ImportFixtures.base64(4))</string>
                        <dict><key>SPKI-SHA256-BASE64</key><string>not base64</string></dict></array>
                      <key>NSPinnedLeafIdentities</key><array/>
                    </dict>
                    <key>cdn.example.com</key><string>not a dictionary</string>
                    <key>img.example.com</key><dict><key>NSIncludesSubdomains</key><true/></dict>
                    """)))
        XCTAssertEqual(pins.rules.map(\.domain), ["api.example.com"])
        let api = pins.rules[0]
        XCTAssertFalse(api.includeSubdomains, "only a boolean true includes subdomains")
        XCTAssertEqual(api.identities?.ca, [ImportFixtures.pin(2)])
        XCTAssertEqual(api.identities?.leaf, [], "an empty list stays: it allows no chain")
        let notes = pins.notes.map(\.description)
        XCTAssertEqual(notes.count, 6, "\(notes)")
        XCTAssertTrue(
            notes.contains { $0.hasSuffix("NSPinnedCAIdentities[1]: no SPKI-SHA256-BASE64 string: ATS skips this identity") }, "\(notes)")
        XCTAssertTrue(notes.contains { $0.contains("NSPinnedCAIdentities[2]: \"not base64\" is not a base64 SHA-256") }, "\(notes)")
        XCTAssertTrue(
            notes.contains { $0.hasSuffix("NSPinnedLeafIdentities: no identity: ATS refuses every chain for this domain") }, "\(notes)")
        XCTAssertTrue(notes.contains { $0.hasSuffix("NSIncludesSubdomains: not a boolean: ATS reads it as false") }, "\(notes)")
        XCTAssertTrue(notes.contains { $0.hasSuffix("cdn.example.com: is not a dictionary: ATS ignores it") }, "\(notes)")
        XCTAssertTrue(
            notes.contains {
                $0.hasSuffix("img.example.com: neither NSPinnedCAIdentities nor NSPinnedLeafIdentities: ATS does not pin it")
            }, "\(notes)")
    }

    func testAFileWithoutPinnedDomainsIsRefusedAndTrustKitPointsHere() {
        let none = ImportFixtures.error { () throws(ClientSourceError) in
            try AppTransportSecurityImporter.read(
                ImportFixtures.bytes("<plist><dict><key>a</key><string>b</string></dict></plist>"), file: "Info.plist")
        }
        XCTAssertEqual(
            none?.description,
            "Info.plist: NSAppTransportSecurity.NSPinnedDomains: missing or not a dictionary: not an App Transport Security pin configuration"
        )
        let asTrustKit = ImportFixtures.error { () throws(ClientSourceError) in
            try TrustKitImporter.read(ImportFixtures.bytes(twoDomains), file: "Info.plist")
        }
        XCTAssertEqual(
            asTrustKit?.description,
            "Info.plist: NSAppTransportSecurity.NSPinnedDomains: Apple's own pins, not TrustKit's: read them as ats (--as ats, or ats: in clients:)"
        )
    }

    func testAnImportStanzaKeepsTheTiers() throws {
        let yaml = ImportReport.yaml([try read(ImportFixtures.bytes(twoDomains))])
        XCTAssertTrue(yaml.contains("    ca:\n      - \"\(ImportFixtures.pin(2).text)\""), yaml)
        XCTAssertTrue(yaml.contains("    leaf:\n      - \"\(ImportFixtures.pin(1).text)\""), yaml)
        XCTAssertTrue(yaml.contains("example.com and the names one label below it"), yaml)
        XCTAssertTrue(yaml.contains("#   - {name: \"<release>\", ats: Info.plist}"), yaml)
        let json = ImportReport.json([try read(ImportFixtures.bytes(twoDomains))])
        XCTAssertTrue(json.contains("\"identities\""), json)
    }

    /// bplist00 with the objects given (each a marker and its bytes), one-byte
    /// offsets and references, the first object on top.
    private func bplist(_ objects: [[UInt8]], top: UInt8 = 0) -> [UInt8] {
        var bytes = Array("bplist00".utf8)
        var offsets: [UInt8] = []
        for object in objects {
            offsets.append(UInt8(bytes.count))
            bytes += object
        }
        let table = bytes.count
        bytes += offsets
        bytes += [0, 0, 0, 0, 0, 0, 1, 1]
        bytes += [0, 0, 0, 0, 0, 0, 0, UInt8(objects.count), 0, 0, 0, 0, 0, 0, 0, top, 0, 0, 0, 0, 0, 0, 0, UInt8(table)]
        return bytes
    }

    /// swift-corelibs-foundation's reader crashed on a set where a
    /// dictionary was (a fuzzing finding, kept in Fuzz/corpus/ats): the
    /// reader here refuses what it does not expect, and never loops.
    func testAMalformedBinaryPlistIsAnErrorNeverACrash() {
        func failure(_ bytes: [UInt8]) -> String? {
            ImportFixtures.error { () throws(ClientSourceError) in try AppTransportSecurityImporter.read(bytes, file: "Info.plist") }?
                .description
        }
        let set = bplist([[0xC1, 1], [0x51, UInt8(ascii: "a")]])
        XCTAssertEqual(failure(set), "Info.plist: malformed binary property list: an unsupported value (set, UID or unknown)")
        let loop = bplist([[0xA1, 0]])
        XCTAssertEqual(failure(loop), "Info.plist: malformed binary property list: an object that contains itself")
        let outOfRange = bplist([[0xA1, 9]])
        XCTAssertEqual(failure(outOfRange), "Info.plist: malformed binary property list: a reference out of range")
        let truncated = Array(binary.prefix(200))
        XCTAssertNotNil(failure(truncated))
        let hugeCount = bplist([[0x5F, 0x13, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]])
        XCTAssertEqual(failure(hugeCount), "Info.plist: malformed binary property list: truncated")
        let dictionary = bplist([[0xD1, 1, 2], [0x51, UInt8(ascii: "k")], [0x09]])
        XCTAssertEqual(
            failure(dictionary),
            "Info.plist: NSAppTransportSecurity.NSPinnedDomains: missing or not a dictionary: not an App Transport Security pin configuration",
            "a well-formed file reads, and simply holds no pins")
    }
}
