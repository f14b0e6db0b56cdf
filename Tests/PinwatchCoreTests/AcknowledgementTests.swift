import XCTest

@testable import PinwatchCore

final class AcknowledgementTests: XCTestCase {
    private typealias F = Fixtures
    private let hour: TimeInterval = 3_600

    private func host(_ name: String, ca: [Pin] = [], leaf: [Pin] = [], silence: HostSilence? = nil) -> HostConfig {
        var host = HostConfig(host: name, pins: PinSet(ca: ca, leaf: leaf))
        host.silence = silence
        return host
    }

    /// leaf_only (warning) while the leaf pin matches; blocked (critical) once the leaf key changes.
    private func leafPinned(leafKey: UInt8 = 1, silence: HostSilence? = nil) -> HostReport {
        F.report(host("api.example", leaf: [F.spkiPin(1)], silence: silence), F.result(chain: F.chain(leafKey: leafKey)))
    }

    private var ok: HostReport { F.report(host("ok.example", ca: [F.spkiPin(3)]), F.result(chain: F.chain())) }

    private func dashboard(_ report: HostReport, until: Date, state: AcknowledgedState? = nil) -> Acknowledgement {
        Acknowledgement(
            hostIdentity: report.config.identityKey, until: until, reason: "release on the 14th", by: "ana", at: F.now,
            source: .dashboard, state: state ?? AcknowledgedState(of: report))
    }

    // MARK: The book

    func testHoldsUntilTheDateThenTheHostComesBackOnItsOwn() {
        let clock = F.now
        let report = leafPinned()
        var book = AcknowledgementBook(stored: [dashboard(report, until: clock + 2 * hour)])
        XCTAssertEqual(book.apply(report, now: clock).acknowledgement?.reason, "release on the 14th")
        XCTAssertNotNil(book.apply(report, now: clock + 2 * hour - 1).acknowledgement)
        XCTAssertNil(book.apply(report, now: clock + 2 * hour).acknowledgement, "until is exclusive")
    }

    func testAChangeOfStateSpendsItForGood() {
        let leafOnly = leafPinned()
        XCTAssertEqual(leafOnly.headline, .leafOnly)
        let blocked = leafPinned(leafKey: 9)
        XCTAssertEqual(blocked.severity, .critical)
        let acknowledgement = dashboard(leafOnly, until: F.now + 24 * hour)
        var book = AcknowledgementBook(stored: [acknowledgement])
        XCTAssertNotNil(book.apply(leafOnly, now: F.now).acknowledgement)
        XCTAssertNil(book.apply(blocked, now: F.now + 1).acknowledgement, "a new state is news")
        XCTAssertEqual(book.takeNewlySpent(), [acknowledgement], "the writer removes it from the store")
        XCTAssertEqual(book.takeNewlySpent(), [])
        XCTAssertNil(book.apply(leafOnly, now: F.now + 2).acknowledgement, "flipping back does not reapply it")
        // Read again from a store that still holds it (a reader's cycle): still spent.
        book.replaceStored([acknowledgement])
        XCTAssertNil(book.apply(leafOnly, now: F.now + 3).acknowledgement)
    }

    func testASilenceTakesTheFirstTroubledStateAndLeavesAHealthyHostAlone() {
        let silence = HostSilence(until: F.now + 24 * hour, reason: "backend being retired")
        var book = AcknowledgementBook()
        let healthy = F.report(host("retiring.example", ca: [F.spkiPin(3)], silence: silence), F.result(chain: F.chain()))
        XCTAssertNil(book.apply(healthy, now: F.now).acknowledgement, "nothing to acknowledge on an ok host")
        let troubled = leafPinned(silence: silence)
        let held = book.apply(troubled, now: F.now).acknowledgement
        XCTAssertEqual(held?.source, .config)
        XCTAssertEqual(held?.state, AcknowledgedState(severity: .warning, headline: .leafOnly))
        XCTAssertNotNil(book.apply(troubled, now: F.now + hour).acknowledgement)
        XCTAssertNil(book.apply(leafPinned(leafKey: 9, silence: silence), now: F.now + 2 * hour).acknowledgement)
        XCTAssertNil(book.apply(troubled, now: F.now + 3 * hour).acknowledgement, "spent, not bound again")
    }

    func testAnExpiredSilenceDoesNothing() {
        var book = AcknowledgementBook()
        let report = leafPinned(silence: HostSilence(until: F.now - 1, reason: "old"))
        XCTAssertNil(book.apply(report, now: F.now).acknowledgement)
    }

    func testTheDashboardsAcknowledgementWinsOverTheConfigurations() {
        let report = leafPinned(silence: HostSilence(until: F.now + hour, reason: "from the file"))
        var book = AcknowledgementBook(stored: [dashboard(report, until: F.now + 2 * hour)])
        XCTAssertEqual(book.apply(report, now: F.now).acknowledgement?.source, .dashboard)
    }

    // MARK: Dates

    func testADayEndsAtMidnightUTCAndTimestampsAndDurationsAreRead() {
        let day = AcknowledgementUntil.parseDate("2026-12-15")
        XCTAssertEqual(day.map(DateText.iso8601), "2026-12-16T00:00:00Z")
        XCTAssertEqual(AcknowledgementUntil.parseDate("2026-12-15T18:00:00+01:00").map(DateText.iso8601), "2026-12-15T17:00:00Z")
        XCTAssertEqual(AcknowledgementUntil.parseDate("2026-12-15T18:00:00.5Z").map(DateText.iso8601), "2026-12-15T18:00:00Z")
        XCTAssertEqual(AcknowledgementUntil.parse("7d", now: F.now), F.now + 7 * 24 * hour)
        XCTAssertEqual(AcknowledgementUntil.parse("12h", now: F.now), F.now + 12 * hour)
        XCTAssertEqual(AcknowledgementUntil.parse("30m", now: F.now), F.now + 1_800)
        for bad in ["2026-02-30", "2026-12-5", "tomorrow", "0d", "-3d", "7w", "", "15/12/2026", "99999999999d"] {
            XCTAssertNil(AcknowledgementUntil.parse(bad, now: F.now), bad)
        }
    }

    // MARK: What the outputs say

    func testCheckExitsByTheWorstUnacknowledgedHostAndCountsTheAcknowledged() {
        var book = AcknowledgementBook()
        let silenced = book.apply(
            leafPinned(leafKey: 9, silence: HostSilence(until: F.now + hour, reason: "app 5.2 ships Friday")), now: F.now)
        XCTAssertEqual(silenced.severity, .critical)
        let output = CheckReport.render([ok, silenced])
        XCTAssertEqual(output.exitCode, 0, output.text)
        XCTAssertTrue(output.text.hasPrefix("PINWATCH OK - 2 hosts fine (1 ok, 1 acknowledged) | ok=1 "), output.text)
        XCTAssertTrue(output.text.contains("api.example:443 CRITICAL blocked: "), "the long output still lists it: \(output.text)")
        XCTAssertTrue(output.text.contains("; acknowledged until "), output.text)
        XCTAssertTrue(output.text.contains(": app 5.2 ships Friday"), output.text)

        let warning = leafPinned()
        let withOther = CheckReport.render([silenced, F.report(host("other.example", leaf: [F.spkiPin(1)]), warning.result)])
        XCTAssertEqual(withOther.exitCode, 1, withOther.text)
        XCTAssertTrue(withOther.text.hasPrefix("PINWATCH WARNING - other.example:443 "), withOther.text)
        XCTAssertTrue(withOther.text.contains("(1 warning, 1 acknowledged)"), withOther.text)
    }

    func testMetricHookAndSnapshotSayItIsAcknowledged() throws {
        var book = AcknowledgementBook(stored: [dashboard(leafPinned(), until: Date(timeIntervalSince1970: 1_800_086_400))])
        let acknowledged = book.apply(leafPinned(), now: F.now)
        let metrics = PrometheusExposition.render([acknowledged, ok], cycle: nil, version: "test")
        XCTAssertTrue(metrics.contains("# HELP pinwatch_host_acknowledged "), metrics)
        XCTAssertTrue(metrics.contains("\npinwatch_host_acknowledged{host=\"api.example\",port=\"443\"} 1\n"), metrics)
        XCTAssertFalse(metrics.contains("pinwatch_host_acknowledged{host=\"ok.example\""), "only while true")

        let hook = SeverityTransition(previous: nil, report: acknowledged, time: F.now).json
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(hook.utf8)) as? [String: Any])
        let mark = try XCTUnwrap(object["acknowledged"] as? [String: Any])
        XCTAssertEqual(mark["until"] as? String, "2027-01-16T08:00:00Z")
        XCTAssertEqual(mark["reason"] as? String, "release on the 14th")
        XCTAssertEqual(mark["by"] as? String, "ana")
        let plain = SeverityTransition(previous: nil, report: ok, time: F.now).json
        XCTAssertTrue(plain.contains("\"acknowledged\":null"), plain)

        let host = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(JSONReport.renderHost(acknowledged).utf8)) as? [String: Any])
        XCTAssertEqual((host["acknowledged"] as? [String: Any])?["source"] as? String, "dashboard")
    }
}
