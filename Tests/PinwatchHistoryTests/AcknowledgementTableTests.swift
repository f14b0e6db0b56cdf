import Foundation
import PinwatchCore
import XCTest

@testable import PinwatchHistory

/// The dashboard's acknowledgements in the store: the migration that adds
/// their table, and reads beside a writer that holds the store.
final class AcknowledgementTableTests: XCTestCase {
    private var folder = ""
    private var path: String { folder + "/state.sqlite" }
    private let now = Date(timeIntervalSince1970: 1_800_000_000)

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "pinwatch-acknowledgements-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: folder)
    }

    private func acknowledgement(_ identity: String, reason: String) -> Acknowledgement {
        Acknowledgement(
            hostIdentity: identity, until: now + 3_600, reason: reason, by: "ana", at: now, source: .dashboard,
            state: AcknowledgedState(severity: .warning, headline: .leafOnly))
    }

    func testStoredReadBesideTheWriterReplacedAndRemoved() throws {
        XCTAssertEqual(try AcknowledgementTable.read(path: path), [], "no file: nothing acknowledged")
        let writer = try HistoryStore(path: path, mode: .writer, now: now)
        var tables: [String] = []
        try writer.connection.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") { tables.append($0.text(0)) }
        XCTAssertTrue(tables.contains("acknowledgement"), "\(tables)")

        let first = acknowledgement("api.test:443/api.test@", reason: "release on the 14th")
        try AcknowledgementTable.store(first, path: path)
        try AcknowledgementTable.store(acknowledgement("b.test:443/b.test@", reason: "retired"), path: path)
        XCTAssertEqual(Set(try AcknowledgementTable.read(path: path)), [first, acknowledgement("b.test:443/b.test@", reason: "retired")])

        let again = acknowledgement("api.test:443/api.test@", reason: "moved to the 21st")
        try AcknowledgementTable.store(again, path: path)
        XCTAssertEqual(try AcknowledgementTable.read(path: path).filter { $0.hostIdentity == again.hostIdentity }, [again], "one per host")

        try AcknowledgementTable.remove(hostIdentity: again.hostIdentity, path: path)
        XCTAssertEqual(try AcknowledgementTable.read(path: path).map(\.hostIdentity), ["b.test:443/b.test@"])
        withExtendedLifetime(writer) {}
    }

    func testAnOlderStoreWithoutTheTableReadsAsNothingAcknowledged() throws {
        do {
            let connection = try SQLiteConnection(path: path, readOnly: false)
            try connection.execute("CREATE TABLE host(id INTEGER PRIMARY KEY); PRAGMA user_version=2;")
        }
        XCTAssertEqual(try AcknowledgementTable.read(path: path), [])
    }
}
