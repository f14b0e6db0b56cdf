import Foundation
import PinwatchCT
import PinwatchCore
import PinwatchProbe
import XCTest

/// The built-in copy of the public log list: it parses, its keys are the
/// ones its log ids name, and it is the committed ct/log_list.json.
final class CTLogListTests: XCTestCase {
    private static var repository: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    func testTheBuiltInListParsesWithEveryLogIDTheHashOfItsKey() throws {
        let list = try CTLogList.builtIn()
        XCTAssertEqual(list.version, "59.1")
        XCTAssertEqual(list.timestamp, "2025-07-10T12:53:11Z")
        XCTAssertEqual(list.logs.count, 50)
        // CTLogList refuses a list whose log_id is not SHA-256(key); checked
        // again here so that the test says it outright.
        for log in list.logs {
            XCTAssertEqual(SHA256Digest.of(log.key), log.logID, log.description)
            XCTAssertEqual(log.logID.count, 32)
        }
        let tiled = list.logs.filter { if case .staticCTAPI = $0.interface { true } else { false } }
        XCTAssertEqual(tiled.map(\.description), ["Geomys 'Tuscolo2025h2'", "Geomys 'Tuscolo2026h1'", "Geomys 'Tuscolo2026h2'"])
        XCTAssertEqual(
            tiled.first?.interface,
            .staticCTAPI(
                submissionURL: URL(string: "https://tuscolo2025h2.sunlight.geomys.org/")!,
                monitoringURL: URL(string: "https://tuscolo2025h2.skylight.geomys.org/")!))
        XCTAssertEqual(Set(list.logs.map(\.operatorName)).count, 7)
    }

    func testTheEmbeddedListIsTheCommittedFile() throws {
        let file = try Data(contentsOf: Self.repository.appendingPathComponent("ct/log_list.json"))
        XCTAssertEqual(try CTLogList(json: [UInt8](file)), try CTLogList.builtIn(), "run scripts/ct-log-list-embed")
    }

    func testTheConfiguredListIsTheBuiltInOneOrAFile() throws {
        XCTAssertEqual(try CTLogList.load(configured: CTSetting.builtInLogList), try CTLogList.builtIn())
        let file = Self.repository.appendingPathComponent("ct/log_list.json").path
        XCTAssertEqual(try CTLogList.load(configured: file).logs.count, 50)
        XCTAssertThrowsError(try CTLogList.load(configured: "/nonexistent/log_list.json")) { error in
            XCTAssertTrue("\(error)".contains("cannot be read"), "\(error)")
        }
    }

    /// A release that requires CT checks SCTs with the list `ct: logs:`
    /// names, the built-in one included (not read as a file called
    /// "built-in").
    func testSCTKeysComeFromTheConfiguredListBuiltInOrAFile() throws {
        let builtIn = try CTLogList.sctLogKeys(configured: CTSetting.builtInLogList)
        XCTAssertEqual(builtIn, try CTLogList.builtIn().sctLogKeys)
        XCTAssertEqual(builtIn, try CTLogList.sctLogKeys(configured: Self.repository.appendingPathComponent("ct/log_list.json").path))
        XCTAssertThrowsError(try CTLogList.sctLogKeys(configured: "/nonexistent/log_list.json"))
    }
}
