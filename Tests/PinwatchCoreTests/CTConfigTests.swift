import Foundation
import XCTest

@testable import PinwatchCore

/// `ct:` is off unless written; written, each key is checked on its line.
final class CTConfigTests: XCTestCase {
    private func load(_ yaml: String) throws(ConfigError) -> Config {
        try ConfigLoader(certificateDigests: { _ in [] }).load(yaml: yaml, path: "/etc/pinwatch/pinwatch.yaml")
    }

    func testOffUnlessWrittenAndReadWithThePathResolved() throws {
        XCTAssertNil(try load("interval: 60s\n").ct)
        XCTAssertEqual(
            try load("ct:\n  logs: ct/logs.json\n  search: https://api.certspotter.com\n").ct,
            CTSetting(logList: "/etc/pinwatch/ct/logs.json", search: "https://api.certspotter.com"))
        XCTAssertEqual(try load("ct: {logs: /srv/logs.json}\n").ct, CTSetting(logList: "/srv/logs.json"))
        XCTAssertEqual(try load("ct: {search: \"http://127.0.0.1:8080/ct\"}\n").ct, CTSetting(search: "http://127.0.0.1:8080/ct"))
    }

    /// `built-in` names the copy of the public list, not a file beside the configuration.
    func testBuiltInIsTheBuiltInListNotAPath() throws {
        XCTAssertEqual(try load("interval: 60s\nct:\n  logs: built-in\n").ct, CTSetting(logList: CTSetting.builtInLogList))
        XCTAssertEqual(try load("ct: {logs: ./built-in}\n").ct, CTSetting(logList: "/etc/pinwatch/./built-in"))
    }

    func testEachBadValueIsOneProblemOnItsLineNamingTheKey() {
        let cases: [(String, Int, String, String)] = [
            ("ct: {}\n", 1, "ct", "give logs: FILE or search: URL"),
            ("ct: on\n", 1, "ct", "expected a mapping"),
            ("ct:\n  logs: \"\"\n", 2, "ct.logs", "has no value"),
            ("ct:\n  search: ftp://example.com\n", 2, "ct.search", "is not an http(s) base URL"),
            ("ct:\n  search: \"https://example.com/v1?x=1\"\n", 2, "ct.search", "is not an http(s) base URL"),
            ("ct:\n  search: \"https://exa mple.com\"\n", 2, "ct.search", "is not an http(s) base URL"),
            ("ct:\n  logs: a.json\n  serach: https://example.com\n", 3, "ct.serach", "unknown key (did you mean search?)"),
        ]
        for (yaml, line, key, message) in cases {
            do {
                _ = try load(yaml)
                XCTFail("accepted: \(yaml)")
            } catch {
                XCTAssertEqual(error.problems.count, 1, "\(yaml): \(error.problems)")
                XCTAssertEqual(error.problems.first?.line, line, yaml)
                XCTAssertEqual(error.problems.first?.key, key, yaml)
                XCTAssertTrue(error.problems.first?.message.contains(message) ?? false, "\(yaml): \(error.problems)")
            }
        }
    }
}
