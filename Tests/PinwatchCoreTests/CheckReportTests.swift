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
            ([], "UNKNOWN", 3),
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

    func testFirstLineNamesTheWorstHostsAndPerfdataCarriesThresholds() {
        let output = CheckReport.render([ok, ok, leafOnly, failed], warnDays: 21, criticalDays: 7)
        let lines = output.text.split(separator: "\n").map(String.init)
        XCTAssertEqual(
            lines.first,
            "PINWATCH UNKNOWN - down.example:443 probe failed (timeout): timed out; "
                + "api.example.com:443 only the leaf pin still matches: breaks at the next leaf renewal (leaf expires in 60 days)"
                + " (1 unknown, 1 warning, 2 ok)"
                + " | ok=2 leaf_only=1 blocked=0 error=1 unpinned=0 'ok.example:443_days'=60;21:;7: 'ok.example:443_days'=60;21:;7:"
                + " 'api.example.com:443_days'=60;21:;7:")
        XCTAssertEqual(lines.count, 3)
        XCTAssertTrue(lines[1].hasPrefix("down.example:443 UNKNOWN error: probe failed (timeout): timed out"), lines[1])
        XCTAssertTrue(lines[2].hasPrefix("api.example.com:443 WARNING leaf_only: only the leaf pin still matches"), lines[2])
    }

    /// A host name is the monitoring system's label: `'` is doubled inside
    /// the quotes, `=` cannot appear in it, and `|` would start the perfdata.
    func testNamesCannotBreakThePerfdata() {
        let odd = F.report(host("it's=a|b.example", ca: [F.spkiPin(3)]), F.result(chain: F.chain()))
        let first = String(CheckReport.render([odd], warnDays: 21, criticalDays: 7).text.split(separator: "\n")[0])
        XCTAssertEqual(
            first, "PINWATCH OK - 1 host fine (1 ok) | ok=1 leaf_only=0 blocked=0 error=0 unpinned=0 'it''s_a/b.example:443_days'=60;21:;7:"
        )
    }

    func testFirstLineNamesAtMostThreeHostsThenCounts() {
        let output = CheckReport.render([leafOnly, blocked, failed, expiring(days: 3), ok])
        let first = String(output.text.split(separator: "\n")[0])
        XCTAssertTrue(first.hasPrefix("PINWATCH CRITICAL - moved.example:443 pinned clients refuse this host now"), first)
        XCTAssertTrue(first.contains("; +1 more (2 critical, 1 unknown, 1 warning, 1 ok) |"), first)
        XCTAssertFalse(first.contains("api.example.com:443 only"), "the fourth host is counted, not named: \(first)")
    }

    func testAllFineSaysSo() {
        let first = String(
            CheckReport.render([ok, F.report(host("new.example"), F.result(chain: F.chain()))]).text.split(separator: "\n")[0])
        XCTAssertTrue(first.hasPrefix("PINWATCH OK - 2 hosts fine (1 ok, 1 unpinned) | "), first)
    }

    func testNoHostsIsUnknown() {
        let output = CheckReport.render([])
        XCTAssertEqual(output.exitCode, 3)
        XCTAssertEqual(output.text, "PINWATCH UNKNOWN - no hosts configured\n")
    }

    func testExpiryIsNamedOnTheFirstLine() {
        let first = CheckReport.render([expiring(days: 3)]).text.split(separator: "\n")[0]
        XCTAssertTrue(first.contains("soon.example:443 the leaf certificate expires in 3 days"), String(first))
    }

    /// The long line names the headline the table shows: an ok chain whose
    /// leaf expired is `CRITICAL expired`, and the days are past, not negative.
    func testLongLineSaysTheHeadlineAndHowLongAgoTheLeafExpired() {
        let expired = expiring(days: -25.5)
        let daysAgo = -(expired.earliestExpiry?.daysLeft ?? 0)
        XCTAssertGreaterThanOrEqual(daysAgo, 25)
        let output = CheckReport.render([expired])
        let lines = output.text.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 2, output.text)
        XCTAssertTrue(lines[1].hasPrefix("soon.example:443 CRITICAL expired: "), lines[1])
        XCTAssertTrue(lines[1].contains("; leaf expired \(daysAgo) days ago"), lines[1])
        XCTAssertFalse(lines[1].contains("days left"), lines[1])
        XCTAssertFalse(lines[1].contains(" ok:"), lines[1])
    }

    func testHostileTextCannotEscapeOrSplitTheStatusLine() {
        let failure = ProbeFailure(kind: .tls, message: "alert\u{1B}[31m | fake=1\nPINWATCH OK")
        let report = F.report(host("down.example", ca: [F.spkiPin(3)]), .failed(failure, elapsed: 1))
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
