import PinwatchSystem
import XCTest

@testable import PinwatchCore

/// `silence:` per host (DESIGN §14): its dates, its problems, and the
/// warning `validate` gives for one whose date has passed.
final class SilenceConfigTests: XCTestCase {
    private let path = NSTemporaryDirectory() + "pinwatch-silence-config/pinwatch.yaml"

    private func loader() -> ConfigLoader {
        ConfigLoader(
            certificateDigests: { path in throw ProxyURLError("\(path): no such file") },
            readText: { path, limit throws(RegularFile.ReadError) in try RegularFile.readText(path, limit: limit) })
    }

    private func load(_ yaml: String) throws(ConfigError) -> Config {
        try loader().load(yaml: yaml, path: path)
    }

    private func problems(_ yaml: String, file: StaticString = #filePath, line: UInt = #line) -> [ConfigProblem] {
        loader().problems(ofYAML: yaml, path: path, file: file, line: line)
    }

    func testADayAndATimestampAreRead() throws {
        let config = try load(
            """
            hosts:
              - host: a.test
                silence: {until: 2026-12-15, reason: "app 5.2 ships on the 14th"}
              - host: b.test
                silence:
                  until: 2026-12-15T18:00:00+01:00
                  reason: backend being retired
              - host: c.test
            """)
        XCTAssertEqual(config.hosts[0].silence?.until.timeIntervalSince1970, 1_797_379_200, "the end of the 15th in UTC")
        XCTAssertEqual(config.hosts[0].silence?.reason, "app 5.2 ships on the 14th")
        XCTAssertEqual(config.hosts[1].silence.map { DateText.iso8601($0.until) }, "2026-12-15T17:00:00Z")
        XCTAssertNil(config.hosts[2].silence)
    }

    func testProblemsNameTheKeyAndSayWhatIsWanted() {
        let found = problems(
            """
            hosts:
              - host: a.test
              - host: b.test
              - host: c.test
              - host: d.test
                silence: {until: next friday, reason: x}
              - host: e.test
                silence: {until: 2026-12-15}
              - host: f.test
                silence: {until: 2026-12-15, reason: x, untill: 2026-12-16}
              - host: g.test
                silense: {until: 2026-12-15, reason: x}
              - host: h.test
                silence: 2026-12-15
            """)
        let lines = found.map { "\($0.key): \($0.message)" }
        XCTAssertEqual(found.count, 5, "\(lines)")
        XCTAssertTrue(
            lines.contains { $0.hasPrefix("hosts[3].silence.until: \"next friday\" is not a date: write 2026-12-15") }, "\(lines)")
        XCTAssertTrue(lines.contains { $0.hasPrefix("hosts[4].silence.reason: missing") }, "\(lines)")
        XCTAssertTrue(lines.contains("hosts[5].silence.untill: unknown key (did you mean until?)"), "\(lines)")
        XCTAssertTrue(lines.contains("hosts[6].silense: unknown key (did you mean silence?)"), "\(lines)")
        XCTAssertTrue(lines.contains { $0.hasPrefix("hosts[7].silence: expected a mapping") }, "\(lines)")
        XCTAssertEqual(found.first { $0.key == "hosts[3].silence.until" }?.line, 6)
    }

    func testValidateWarnsOfASilenceWhoseDateHasPassed() throws {
        let config = try load(
            """
            hosts:
              - host: past.test
                silence: {until: 2026-01-31, reason: x}
              - host: future.test
                silence: {until: 2026-12-31, reason: y}
            """)
        let now = try XCTUnwrap(AcknowledgementUntil.parseDate("2026-11-26T06:00:00Z"))
        XCTAssertEqual(
            ExpiredSilences.warnings(config, now: now),
            ["\(path):2: host past.test:443: silence.until 2026-02-01 00:00 UTC has passed; the silence no longer applies (remove it)"])
        XCTAssertEqual(ExpiredSilences.warnings(config, now: try XCTUnwrap(AcknowledgementUntil.parseDate("2026-01-31T23:59:59Z"))), [])
    }
}
