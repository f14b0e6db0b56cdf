import Foundation
import PinwatchCore
import XCTest

@testable import PinwatchHistory

/// The certificates Certificate Transparency logged for each host, kept
/// in the store: a round trip beside the writer, newest first and at most
/// the per-host bound, one seen again kept once, expired ones forgotten,
/// damaged rows skipped.
final class CTLoggedTableTests: XCTestCase {
    private var folder = ""
    private var path: String { folder + "/state.sqlite" }
    private let now = Date(timeIntervalSince1970: 1_800_000_000)

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "pinwatch-ct-logged-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: folder)
    }

    private func logged(_ index: UInt64, ago: TimeInterval, expiresIn: TimeInterval = 86_400, breaks: [String] = []) -> CTLoggedCertificate
    {
        CTLoggedCertificate(
            loggedAt: now.addingTimeInterval(-ago), log: "Log A", index: index, precertificate: index % 2 == 0, serial: "0\(index)",
            notBefore: now.addingTimeInterval(-ago), notAfter: now.addingTimeInterval(expiresIn), issuer: "CN=YR\(index)",
            issuerSPKISHA256: index == 3 ? [] : [UInt8](repeating: UInt8(index), count: 32),
            leafSPKISHA256: [UInt8](repeating: 9, count: 32),
            verdict: CTLoggedVerdict(survives: breaks.isEmpty ? ["ios 7"] : [], breaks: breaks),
            chainDER: index == 2 ? [] : [[0x30, UInt8(index)], [UInt8](repeating: 0x30, count: 300)])
    }

    func testStoredReadNewestFirstBoundedAndExpiredForgotten() throws {
        XCTAssertEqual(try CTLoggedTable.read(path: path, now: now), [:], "no file: nothing")
        let writer = try HistoryStore(path: path, mode: .writer)
        XCTAssertEqual(writer.fileVersion, 8)
        let first = [logged(1, ago: 300, breaks: ["android 5.2", "android 6"]), logged(2, ago: 200), logged(3, ago: 100)]
        try CTLoggedTable.store(["api.test": first], path: path, now: now)
        XCTAssertEqual(try CTLoggedTable.read(path: path, now: now), ["api.test": first.reversed()])

        // Seen again (a log served it twice): kept once; an expired one goes.
        try CTLoggedTable.store(["api.test": [first[0], logged(4, ago: 10, expiresIn: -1)]], path: path, now: now)
        XCTAssertEqual(try CTLoggedTable.read(path: path, now: now)["api.test"]?.map(\.index), [3, 2, 1])
        // Read a day later, once the certificates have expired: nothing.
        XCTAssertEqual(try CTLoggedTable.read(path: path, now: now.addingTimeInterval(86_401)), [:])

        let many = (10..<40).map { logged(UInt64($0), ago: Double(1_000 - $0)) }
        try CTLoggedTable.store(["cdn.test": many], path: path, now: now)
        let read = try XCTUnwrap(try CTLoggedTable.read(path: path, now: now)["cdn.test"])
        XCTAssertEqual(read.map(\.index), (20..<40).reversed().map(UInt64.init), "the newest \(CTLoggedTable.perHost)")
    }

    func testRowsThatAreNotCertificatesAreSkipped() throws {
        let writer = try HistoryStore(path: path, mode: .writer)
        let key = String(repeating: "09", count: 32)
        try writer.connection.execute(
            """
            INSERT INTO ct_logged(host, log, entry_index, logged_at, precertificate, serial, not_before, not_after, issuer,
              issuer_spki, leaf_spki, survives, breaks, chain) VALUES
              ('api.test', 'L', 1, 1, 0, '01', 1, 1900000000, 'CN=A', x'01', x'\(key)', '', 'x', x''),
              ('api.test', 'L', -2, 1, 0, '01', 1, 1900000000, 'CN=A', x'', x'\(key)', '', 'x', x''),
              ('api.test', 'L', 3, 1, 0, '01', 1, 1900000000, 'CN=A', x'', x'01', '', 'x', x''),
              ('api.test', 'L', 4, 1, 0, '01', 1, 1900000000, 'CN=A', x'', x'\(key)', '', 'x', x'');
            """)
        XCTAssertEqual(try CTLoggedTable.read(path: path, now: now)["api.test"]?.map(\.index), [4])
    }

    func testAChainSplitsBackIntoItsCertificatesOrIntoNone() {
        let chain: [[UInt8]] = [[1, 2, 3], [UInt8](repeating: 4, count: 70_000)]
        XCTAssertEqual(CTLoggedTable.certificates(CTLoggedTable.joined(chain)), chain)
        XCTAssertEqual(CTLoggedTable.certificates([]), [])
        XCTAssertEqual(CTLoggedTable.certificates([0, 0, 9, 1]), [], "a length past the end")
        XCTAssertEqual(CTLoggedTable.certificates([0, 0]), [], "a length cut short")
        XCTAssertEqual(CTLoggedTable.certificates([0, 0, 0]), [], "an empty certificate")
    }
}
