import Foundation
import PinwatchCore
import XCTest

@testable import PinwatchImport

final class ClientSourceLoaderTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("pinwatch-import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    private let loader = ClientSourceLoader(verify: { _, _, _ in true })

    func testAFiftyMegabyteFileIsRefusedWithoutReadingIt() throws {
        let huge = folder.appendingPathComponent("network_security_config.xml")
        FileManager.default.createFile(atPath: huge.path, contents: nil)
        let handle = try FileHandle(forWritingTo: huge)
        try handle.truncate(atOffset: 50 * 1024 * 1024)
        try handle.close()
        let source = ClientSource(name: "android", format: .nsc, location: .file(huge.path))
        let failure = ImportFixtures.error { () throws(ClientSourceError) in try loader.read(source) }
        XCTAssertEqual(failure?.file, huge.path)
        XCTAssertTrue(
            failure?.message.contains("4194304") == true || failure?.message.contains("4 MiB") == true, "\(String(describing: failure))")
    }

    func testAMissingFileSaysSo() {
        let source = ClientSource(name: "ios", format: .trustkit, location: .file(folder.appendingPathComponent("none.plist").path))
        let failure = ImportFixtures.error { () throws(ClientSourceError) in try loader.read(source) }
        XCTAssertTrue(failure?.description.hasSuffix("none.plist: no such file") == true, "\(String(describing: failure))")
    }

    func testASignedListNeedsTheAppsKey() {
        let failure = ImportFixtures.error { () throws(ClientSourceError) in
            try loader.read(ImportFixtures.bytes("{\"fingerprints\": []}"), file: "pins.json", format: .dynamicList, publicKey: [4, 1])
        }
        XCTAssertEqual(failure?.description, "pins.json: a signed list needs the app's public key (uncompressed P-256 point)")
    }

    func testAListURLGoesThroughTheInjectedFetchWithTheSizeBoundAndAFreshChallenge() throws {
        let seen = LockedBox<[(String, Int, String)]>([])
        let fetching = ClientSourceLoader(
            verify: { _, _, _ in true },
            fetch: { source, limit, challenge throws(ClientSourceError) in
                seen.set(seen.get() + [(source.locationText, limit, challenge)])
                return ClientSourceLoader.FetchedList(body: Array("{\"fingerprints\": []}".utf8))
            })
        let key = Data(repeating: 4, count: 65).base64EncodedString()
        let source = ClientSource(name: "web", format: .dynamicList, location: .url("https://pins.example.com/list"), publicKey: key)
        let pins = try fetching.read(source)
        _ = try fetching.read(source)
        XCTAssertEqual(pins.rules, [])
        XCTAssertEqual(seen.get().first?.0, "https://pins.example.com/list")
        XCTAssertEqual(seen.get().first?.1, ClientSourceLoader.maximumBytes)
        let challenges = seen.get().map(\.2)
        XCTAssertEqual(challenges.compactMap { Data(base64Encoded: $0)?.count }, [16, 16], "16 random bytes, as the SDK sends")
        XCTAssertNotEqual(challenges.first, challenges.last, "a fresh challenge each time")

        let offline = ImportFixtures.error { () throws(ClientSourceError) in try loader.read(source) }
        XCTAssertEqual(offline?.file, "https://pins.example.com/list")
    }

    func testTheFormatIsDetectedFromTheContents() {
        let samples: [(String, ClientFormat?)] = [
            ("<?xml version=\"1.0\"?><network-security-config/>", .nsc),
            ("<plist version=\"1.0\"><dict/></plist>", .trustkit),
            ("{\"TSKPinnedDomains\": {}}", .trustkit),
            ("bplist00", .trustkit),
            ("{\"fingerprints\": []}", .dynamicList),
            ("Public-Key-Pins: pin-sha256=\"x\"", .hpkp),
            ("curl --pinnedpubkey sha256//x https://a.example/", .curl),
            ("CertificatePinner.Builder().add(\"a.example\", \"sha256/x\")", .okhttp),
            ("just text", nil),
        ]
        for (text, expected) in samples {
            XCTAssertEqual(ClientSourceLoader.detect(ImportFixtures.bytes(text)), expected, text)
        }
    }

    /// Every format as saved with Windows line endings reads as with LF.
    func testCRLFFilesOfEveryFormatRead() throws {
        let one = ImportFixtures.base64(1)
        let two = ImportFixtures.base64(2)
        let samples: [(ClientFormat, String)] = [
            (
                .nsc,
                "<network-security-config>\n<domain-config>\n<domain>a.example.com</domain>\n<pin-set>"
                    + "<pin digest=\"SHA-256\">\(one)</pin></pin-set>\n</domain-config>\n</network-security-config>\n"
            ),
            (
                .trustkit,
                "<?xml version=\"1.0\"?>\n<plist version=\"1.0\">\n<dict>\n<key>TSKPinnedDomains</key>\n<dict>\n<key>a.example.com</key>\n"
                    + "<dict><key>TSKPublicKeyHashes</key>\n<array><string>\(one)</string>\n<string>\(two)</string></array></dict>\n"
                    + "</dict>\n</dict>\n</plist>\n"
            ),
            (
                .trustkit,
                "let c = [\n  kTSKPinnedDomains: [\n    \"a.example.com\": [kTSKPublicKeyHashes: [\"\(one)\",\n \"\(two)\"]]\n  ]\n]\n"
            ),
            (.okhttp, "CertificatePinner.Builder()\n  .add(\"a.example.com\",\n    \"sha256/\(one)\")\n"),
            (
                .curl,
                "curl --pinnedpubkey 'sha256//\(one)' \\\n  https://a.example.com/\ncurl --pinnedpubkey 'sha256//\(one)' https://a.example.com/\n"
            ),
            (.hpkp, "HTTP/1.1 200 OK\nHost: a.example.com\nPublic-Key-Pins: pin-sha256=\"\(one)\"; max-age=60\n\n"),
        ]
        for (format, text) in samples {
            let crlf = ImportFixtures.bytes(text.replacingOccurrences(of: "\n", with: "\r\n"))
            let pins = try loader.read(crlf, file: "f", format: format)
            XCTAssertTrue(
                pins.rules.contains { $0.domain == "a.example.com" && $0.pins.contains(ImportFixtures.pin(1)) }, "\(format): \(pins)")
        }
    }

    func testPinStringsMustBeUTF8() {
        let failure = ImportFixtures.error { () throws(ClientSourceError) in
            try loader.read([0x2E, 0x61, 0x64, 0x64, 0x28, 0xFF, 0xFE], file: "Pins.kt", format: .okhttp)
        }
        XCTAssertEqual(failure?.description, "Pins.kt: not UTF-8 text")
    }
}

/// A value a @Sendable closure can record.
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func set(_ newValue: Value) { lock.withLock { value = newValue } }
    func get() -> Value { lock.withLock { value } }
}
