import XCTest
@testable import PinwatchCore

final class CheckReportTests: XCTestCase {
    private typealias F = Fixtures

    private func host(_ name: String, ca: [Pin] = [], leaf: [Pin] = []) -> HostConfig {
        HostConfig(host: name, pins: PinSet(ca: ca, leaf: leaf))
    }

    private var ok: HostReport { F.report(host("ok.example", ca: [F.spkiPin(3)]), F.result(chain: F.chain())) }
    private var leafOnly: HostReport { F.report(host("api.example.com", leaf: [F.spkiPin(1)]), F.result(chain: F.chain())) }
    private var blocked: HostReport { F.report(host("moved.example", ca: [F.spkiPin(50)]), F.result(chain: F.chain())) }
    private var failed: HostReport {
        F.report(host("down.example", ca: [F.spkiPin(3)]), .failed(ProbeFailure(kind: .timeout, message: "timed out"), elapsed: 5))
    }
    private func expiring(days: Double) -> HostReport {
        F.report(host("soon.example", ca: [F.spkiPin(3)]), F.result(chain: F.chain(leafDaysLeft: days)))
    }

    func testStatesAndExitCodes() {
        let cases: [([HostReport], String, Int32)] = [
            ([ok], "OK", 0),
            ([], "OK", 0),
            ([F.report(host("new.example"), F.result(chain: F.chain()))], "OK", 0),
            ([ok, leafOnly], "WARNING", 1),
            ([ok, expiring(days: 10)], "WARNING", 1),
            ([ok, expiring(days: 3)], "CRITICAL", 2),
            ([ok, expiring(days: -2)], "CRITICAL", 2),
            ([leafOnly, failed], "UNKNOWN", 3),
            ([failed, blocked, leafOnly], "CRITICAL", 2),
        ]
        for (reports, label, code) in cases {
            let output = CheckReport.render(reports)
            XCTAssertEqual(output.exitCode, code, label)
            XCTAssertTrue(output.text.hasPrefix("PINWATCH \(label) - "), output.text)
        }
    }

    func testSummaryPerfdataAndLongOutput() {
        let output = CheckReport.render([ok, ok, leafOnly, failed])
        let lines = output.text.split(separator: "\n").map(String.init)
        XCTAssertEqual(
            lines.first,
            "PINWATCH UNKNOWN - 2 ok, 1 leaf_only (api.example.com:443 breaks at next leaf renewal), 1 error (down.example:443 timeout: timed out)"
                + " | ok=2 leaf_only=1 blocked=0 error=1 unpinned=0 'ok.example:443_days'=60 'ok.example:443_days'=60 'api.example.com:443_days'=60")
        XCTAssertEqual(lines.count, 3)
        XCTAssertTrue(lines[1].hasPrefix("api.example.com:443 WARNING leaf_only: breaks at next leaf renewal"), lines[1])
        XCTAssertTrue(lines[2].hasPrefix("down.example:443 UNKNOWN error: timeout: timed out"), lines[2])
    }

    func testExpiryIsNamedOnTheFirstLine() {
        let first = CheckReport.render([expiring(days: 3)]).text.split(separator: "\n")[0]
        XCTAssertTrue(first.contains("1 critical_expiry (soon.example:443 leaf expires in 3 days)"), String(first))
    }

    func testHostileTextCannotEscapeOrSplitTheStatusLine() {
        var report = failed
        report.result.failure = ProbeFailure(kind: .tls, message: "alert\u{1B}[31m | fake=1\nPINWATCH OK")
        let text = CheckReport.render([report]).text
        XCTAssertFalse(text.contains("\u{1B}"))
        let first = text.split(separator: "\n")[0]
        XCTAssertEqual(first.filter { $0 == "|" }.count, 1, String(first))
        XCTAssertEqual(text.split(separator: "\n").count, 2)
    }

    func testUnknownIsOneCleanLineWithoutPerfdataSeparators() {
        let outcome = CheckReport.unknown("c.yaml:4: host a|b: pin \"x|y\"\u{1B}[31m\nsecond problem")
        XCTAssertEqual(outcome.exitCode, 3)
        XCTAssertTrue(outcome.text.hasPrefix("PINWATCH UNKNOWN - c.yaml:4: host a/b"), outcome.text)
        XCTAssertFalse(outcome.text.contains("|"), outcome.text)
        XCTAssertFalse(outcome.text.contains("\u{1B}"), outcome.text)
        XCTAssertEqual(outcome.text.filter { $0 == "\n" }.count, 1, "one line only")
    }
}
