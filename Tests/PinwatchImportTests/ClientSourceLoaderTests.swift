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

    func testAListURLGoesThroughTheInjectedFetchWithTheSizeBound() throws {
        let seen = LockedBox<(String, Int)?>(nil)
        let fetching = ClientSourceLoader(
            verify: { _, _, _ in true },
            fetch: { source, limit throws(ClientSourceError) in
                seen.set((source.locationText, limit))
                return Array("{\"fingerprints\": []}".utf8)
            })
        let key = Data(repeating: 4, count: 65).base64EncodedString()
        let source = ClientSource(name: "web", format: .dynamicList, location: .url("https://pins.example.com/list"), publicKey: key)
        let pins = try fetching.read(source)
        XCTAssertEqual(pins.rules, [])
        XCTAssertEqual(seen.get()?.0, "https://pins.example.com/list")
        XCTAssertEqual(seen.get()?.1, ClientSourceLoader.maximumBytes)

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
