import Foundation
import PinwatchCore
import XCTest

@testable import PinwatchHistory

/// Each followed Certificate Transparency log's verified position in the
/// store: the migration that adds its table, a round trip beside the
/// writer, and rows that are not positions skipped.
final class CTLogPositionTableTests: XCTestCase {
    private var folder = ""
    private var path: String { folder + "/state.sqlite" }

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "pinwatch-ct-positions-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: folder)
    }

    private func hash(_ seed: UInt8) -> [UInt8] { [UInt8](repeating: seed, count: 32) }

    func testStoredReadBesideTheWriterAndReplaced() throws {
        XCTAssertEqual(try CTLogPositionTable.read(path: path), [], "no file: no position")
        let writer = try HistoryStore(path: path, mode: .writer)
        var tables: [String] = []
        try writer.connection.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") { tables.append($0.text(0)) }
        XCTAssertTrue(tables.contains("ct_log_position"), "\(tables)")

        let started = CTLogPositionRecord(logID: hash(1), treeSize: 11, rootHash: hash(2), timestamp: 1_800_000_000_000, range: nil)
        let followed = CTLogPositionRecord(
            logID: hash(3), treeSize: 6, rootHash: hash(4), timestamp: 1_800_000_000_001, range: [hash(5), hash(6)])
        try CTLogPositionTable.store([started, followed], path: path)
        XCTAssertEqual(Set(try CTLogPositionTable.read(path: path)), [started, followed])

        var moved = started
        moved.treeSize = 13
        moved.range = [hash(7), hash(8), hash(9)]
        try CTLogPositionTable.store([moved], path: path)
        XCTAssertEqual(Set(try CTLogPositionTable.read(path: path)), [moved, followed])
    }

    func testRowsThatAreNotPositionsAreSkipped() throws {
        let writer = try HistoryStore(path: path, mode: .writer)
        try writer.connection.execute(
            """
            INSERT INTO ct_log_position VALUES (x'0101', 5, x'\(String(repeating: "02", count: 32))', 1, NULL);
            INSERT INTO ct_log_position VALUES (x'\(String(repeating: "03", count: 32))', -1, x'\(String(repeating: "02", count: 32))', 1, NULL);
            INSERT INTO ct_log_position VALUES (x'\(String(repeating: "04", count: 32))', 5, x'\(String(repeating: "02", count: 32))', 1, x'0102');
            INSERT INTO ct_log_position VALUES (x'\(String(repeating: "05", count: 32))', 5, x'\(String(repeating: "02", count: 32))', 1, NULL);
            """)
        XCTAssertEqual(try CTLogPositionTable.read(path: path).map(\.logID), [hash(5)])
    }
}
