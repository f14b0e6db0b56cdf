import Foundation
import XCTest

@testable import PinwatchCore

/// The forecast, the timeline's words and the verdict's use of history,
/// without a database.
final class HistoryTests: XCTestCase {
    private let day = Fixtures.day
    private let now = Fixtures.now

    // MARK: Failing history writes

    func testFailingWritesAreLoggedAtOnceThenRateLimitedAndTheRecoveryOnce() {
        var notices = HistoryWriteNotices(quietPeriod: 600)
        var health = HistoryWriteHealth()
        XCTAssertEqual(notices.notices(for: health, at: now), [], "healthy: nothing to say")
        health = HistoryWriteHealth(failedWrites: 1, lastFailure: "database or disk is full", failing: true)
        XCTAssertEqual(notices.notices(for: health, at: now), [.failing(message: "database or disk is full", failures: 1)])
        // A full disk fails every cycle: quiet until the period is over.
        for minute in 1..<10 {
            health.failedWrites += 1
            XCTAssertEqual(notices.notices(for: health, at: now.addingTimeInterval(Double(minute) * 60)), [])
        }
        health.failedWrites += 1
        XCTAssertEqual(
            notices.notices(for: health, at: now.addingTimeInterval(600)),
            [.failing(message: "database or disk is full", failures: 10)])
        health.failing = false
        XCTAssertEqual(notices.notices(for: health, at: now.addingTimeInterval(660)), [.resumed(failures: 11)])
        XCTAssertEqual(notices.notices(for: health, at: now.addingTimeInterval(720)), [], "said once")
        // A failure and a recovery within one cycle: both told.
        health.failedWrites += 1
        XCTAssertEqual(
            notices.notices(for: health, at: now.addingTimeInterval(780)),
            [.failing(message: "database or disk is full", failures: 1), .resumed(failures: 1)])
    }

    // MARK: Renewal forecast

    func testWithoutRenewalsA90DayLeafRenewsThirtyDaysBeforeExpiry() {
        let notBefore = now.addingTimeInterval(-10 * day)
        let estimate = RenewalForecast.estimate(
            issued: [], notBefore: notBefore, notAfter: notBefore.addingTimeInterval(90 * day), now: now)
        XCTAssertEqual(estimate.basis, .lifetime)
        XCTAssertEqual(estimate.date, notBefore.addingTimeInterval(60 * day))
        XCTAssertEqual(estimate.days(from: now), 50)
        XCTAssertEqual(estimate.text, "renews ~\(DateText.day(estimate.date)) (estimated)")
    }

    func testALongerLeafRenewsAtTwoThirdsOfItsLifetime() {
        let notBefore = now.addingTimeInterval(-100 * day)
        let estimate = RenewalForecast.estimate(
            issued: [now.addingTimeInterval(-100 * day)], notBefore: notBefore,
            notAfter: notBefore.addingTimeInterval(396 * day), now: now)
        XCTAssertEqual(estimate.basis, .lifetime, "one change is not a cadence")
        XCTAssertEqual(estimate.date, notBefore.addingTimeInterval(264 * day))
    }

    func testTwoRenewalsGiveTheObservedCadence() {
        let issued = [now.addingTimeInterval(-70 * day), now.addingTimeInterval(-40 * day), now.addingTimeInterval(-10 * day)]
        let estimate = RenewalForecast.estimate(
            issued: issued, notBefore: issued[2], notAfter: issued[2].addingTimeInterval(90 * day), now: now)
        XCTAssertEqual(estimate.basis, .observed)
        XCTAssertEqual(estimate.date, now.addingTimeInterval(20 * day))
        XCTAssertEqual(estimate.cadence, 30 * day)
        XCTAssertEqual(estimate.text, "renews ~\(DateText.day(estimate.date)) (observed every 30 d)")
    }

    /// The demo: pinwatch first saw a leaf, and minutes later its
    /// replacement. One renewal, and a first sighting: no cadence at all.
    func testOneRenewalIsNoCadenceWhenSeenMinutesAfterTheFirstSighting() {
        let first = now.addingTimeInterval(-20 * day)
        let replacement = now.addingTimeInterval(-300)
        let estimate = RenewalForecast.estimate(
            issued: [first, replacement], notBefore: replacement, notAfter: replacement.addingTimeInterval(90 * day), now: now)
        XCTAssertEqual(estimate.basis, .lifetime)
        XCTAssertEqual(estimate.days(from: now), 60)
        XCTAssertFalse(estimate.text.contains("every 0 d"), estimate.text)
    }

    /// Backends behind one name serving leaves issued hours apart are one
    /// renewal each time, not a renewal every few hours.
    func testLeavesIssuedWithinADayAreOneRenewal() {
        let hours: [Double] = [-60 * 24, -60 * 24 + 3, -30 * 24, -30 * 24 + 20, 0, 5]
        let issued = hours.map { now.addingTimeInterval($0 * 3600 - day) }
        let estimate = RenewalForecast.estimate(
            issued: issued.shuffled(), notBefore: issued[5], notAfter: issued[5].addingTimeInterval(90 * day), now: now)
        XCTAssertEqual(estimate.basis, .observed)
        XCTAssertEqual(estimate.cadence, 30 * day)
        let flapping = RenewalForecast.estimate(
            issued: [now.addingTimeInterval(-3600), now.addingTimeInterval(-7200), now], notBefore: now,
            notAfter: now.addingTimeInterval(90 * day), now: now)
        XCTAssertEqual(flapping.basis, .lifetime)
    }

    func testIrregularGapsUseTheMedianSoOneLateRenewalDoesNotSkewIt() {
        // Gaps 30, 30, 75 (a renewal that came late), 30: the median is 30.
        let offsets: [Double] = [-165, -135, -105, -30, 0]
        let changes = offsets.map { now.addingTimeInterval($0 * day) }
        let estimate = RenewalForecast.estimate(
            issued: changes.shuffled(), notBefore: now, notAfter: now.addingTimeInterval(90 * day), now: now)
        XCTAssertEqual(estimate.basis, .observed)
        XCTAssertEqual(estimate.cadence, 30 * day)
        XCTAssertEqual(estimate.date, now.addingTimeInterval(30 * day))
    }

    func testAnOverdueRenewalIsDueNowNotInThePastAndNeverZeroDaysAway() {
        let issued = [now.addingTimeInterval(-130 * day), now.addingTimeInterval(-100 * day), now.addingTimeInterval(-70 * day)]
        let estimate = RenewalForecast.estimate(
            issued: issued, notBefore: issued[2], notAfter: issued[2].addingTimeInterval(90 * day), now: now)
        XCTAssertEqual(estimate.date, now)
        XCTAssertEqual(estimate.days(from: now), 1, "overdue: any day now, but the leaf lasts 20 more days")
        let lastDay = RenewalForecast.estimate(
            issued: [], notBefore: now.addingTimeInterval(-89.5 * day), notAfter: now.addingTimeInterval(0.5 * day), now: now)
        XCTAssertEqual(lastDay.days(from: now), 0, "a leaf that expires today")
    }

    // MARK: Timeline

    private func observed(_ chain: [ChainCertificate]) -> ObservedChain {
        ObservedChain(Fixtures.report(Fixtures.host(ca: [Fixtures.spkiPin(3)]), Fixtures.result(chain: chain)))!
    }

    func testLeafKeyChangeNamesTheNewPin() {
        let changes = HistoryTimeline.describeChange(from: observed(Fixtures.chain()), to: observed(Fixtures.chain(leafKey: 9)))
        XCTAssertEqual(changes, ["leaf key changed (CN=api.example.com, new \(PinText.sha256(Fixtures.digest(9))))"])
    }

    func testIntermediateChangeNamesBothCAs() {
        var rotated = Fixtures.chain(intermediateKey: 7)
        rotated[1] = Fixtures.certificate("CN=R13", key: 7, daysLeft: 900, issuer: "CN=Root")
        let changes = HistoryTimeline.describeChange(from: observed(Fixtures.chain()), to: observed(rotated))
        XCTAssertEqual(changes, ["intermediate changed CN=R11 → CN=R13 (new \(PinText.sha256(Fixtures.digest(7))))"])
    }

    func testAnUnchangedChainHasNoEntry() {
        XCTAssertEqual(HistoryTimeline.describeChange(from: observed(Fixtures.chain()), to: observed(Fixtures.chain())), [])
    }

    func testTimelineMergesChainsAndStatusesInTimeOrder() {
        let statuses = [
            RecordedStatus(date: now, status: .ok, severity: .ok, reason: "fine"),
            RecordedStatus(date: now.addingTimeInterval(2 * day), status: .leafOnly, severity: .warning, reason: "stale CA pin"),
        ]
        let entries = HistoryTimeline.entries(
            chains: [(now.addingTimeInterval(2 * day), observed(Fixtures.chain(leafKey: 9))), (now, observed(Fixtures.chain()))],
            statuses: statuses)
        XCTAssertEqual(entries.map(\.kind), [.chain, .status, .chain, .status])
        XCTAssertTrue(entries[0].text.hasPrefix("first seen: CN=api.example.com under CN=R11 → CN=Root"), entries[0].text)
        XCTAssertEqual(entries[3].text, "status ok → leaf_only (warning): stale CA pin")
    }

    func testHostileSubjectsAreShortAndCleanInTheTimeline() {
        var chain = Fixtures.chain(leafKey: 9)
        chain[0] = Fixtures.certificate("CN=\u{1B}]0;x\u{07}" + String(repeating: "a", count: 500), key: 9, issuer: "CN=R11")
        let text = HistoryTimeline.describeChange(from: observed(Fixtures.chain()), to: observed(chain)).joined()
        XCTAssertFalse(text.unicodeScalars.contains { $0.value < 0x20 })
        XCTAssertLessThan(text.count, 200)
    }

    // MARK: The history command's output

    private func timeline(entries count: Int) -> (HostTimeline, [TimelineEntry]) {
        let entries = (0..<count).map { TimelineEntry(date: now.addingTimeInterval(Double($0) * 60), kind: .status, text: "status \($0)") }
        let timeline = HostTimeline(
            host: "api.example.com", port: 443, serverName: "api.example.com", connect: nil, entries: [], renewal: nil, firstSeen: now,
            lastSeen: now)
        return (timeline, entries)
    }

    private func written(_ format: HistoryReportWriter.Format, omitted: Int, entries count: Int, flushSize: Int = 64 * 1024)
        -> (text: String, pieces: [String])
    {
        var pieces: [String] = []
        let writer = HistoryReportWriter(format: format, flushSize: flushSize) { pieces.append($0) }
        let (heading, entries) = timeline(entries: count)
        writer.host(heading, omitted: omitted)
        entries.forEach(writer.entry)
        writer.host(heading, omitted: 0)
        writer.finish()
        return (pieces.joined(), pieces)
    }

    func testTheTextSaysHowManyEarlierEntriesWereLeftOut() {
        let text = written(.text, omitted: 999_900, entries: 3).text
        XCTAssertTrue(text.contains("\n  … 999900 earlier entries not shown (--limit N, --limit 0 for all"), text)
        XCTAssertEqual(text.components(separatedBy: "not shown").count, 2, "only the host that was cut says so")
        XCTAssertTrue(text.contains("status 2\n\napi.example.com:443\n"), text)
    }

    func testTheJSONIsOneDocumentWithEachHostsOmittedCount() throws {
        for entries in [0, 3] {
            let text = written(.json, omitted: 7, entries: entries).text
            let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text)
            XCTAssertEqual(document["version"] as? Int, 1)
            let hosts = try XCTUnwrap(document["hosts"] as? [[String: Any]])
            XCTAssertEqual(hosts.count, 2)
            XCTAssertEqual(hosts.map { $0["entries_omitted"] as? Int }, [7, 0])
            XCTAssertEqual((hosts[0]["entries"] as? [[String: Any]])?.compactMap { $0["text"] as? String }.count, entries)
            XCTAssertEqual(hosts[0]["first_seen"] as? String, DateText.iso8601(now))
        }
        let empty = HistoryReportWriter(format: .json) { XCTAssertNotNil(try? JSONSerialization.jsonObject(with: Data($0.utf8))) }
        empty.finish()
    }

    func testTheOutputIsHandedOnInPiecesNotBuiltWhole() {
        for format in [HistoryReportWriter.Format.text, .json] {
            let whole = written(format, omitted: 0, entries: 2_000).text
            let pieces = written(format, omitted: 0, entries: 2_000, flushSize: 1_024).pieces
            XCTAssertEqual(pieces.joined(), whole)
            XCTAssertGreaterThan(pieces.count, 50)
            XCTAssertLessThan(pieces.map(\.utf8.count).max() ?? 0, 1_024 + 200, "a piece is at most one entry over")
        }
    }

    func testSinceTakesAgesDatesAndTimes() {
        XCTAssertEqual(HistoryWindow.parseSince("7d", now: now), now.addingTimeInterval(-7 * day))
        XCTAssertEqual(HistoryWindow.parseSince("12h", now: now), now.addingTimeInterval(-12 * 3600))
        XCTAssertEqual(HistoryWindow.parseSince("30m", now: now), now.addingTimeInterval(-1800))
        XCTAssertEqual(
            HistoryWindow.parseSince("2026-11-01", now: now), ISO8601DateFormatter().date(from: "2026-11-01T00:00:00Z"))
        XCTAssertEqual(
            HistoryWindow.parseSince("2026-11-01T04:10:00Z", now: now), ISO8601DateFormatter().date(from: "2026-11-01T04:10:00Z"))
        for wrong in ["", "d", "-3d", "yesterday", "2026-13-45", "infd"] {
            XCTAssertNil(HistoryWindow.parseSince(wrong, now: now), wrong)
        }
    }

    // MARK: Verdict with history

    func testLeafOnlyReasonSaysWhenItBreaks() {
        let host = Fixtures.host(ca: [Fixtures.spkiPin(50)], leaf: [Fixtures.spkiPin(1)])
        let report = Fixtures.report(host, Fixtures.result(chain: Fixtures.chain()))
        XCTAssertEqual(report.status, .leafOnly)
        let renewal = RenewalEstimate(date: now.addingTimeInterval(12 * day), basis: .observed, cadence: 30 * day)
        let annotated = report.with(history: HostHistory(renewal: renewal), now: now)
        XCTAssertEqual(annotated.severity, .warning)
        XCTAssertEqual(
            annotated.reason, "only the leaf pin still matches: breaks in ~12 days (next leaf renewal) (leaf expires in 60 days)")
    }

    func testCAKeyChangeIsAWarningThatNamesWhatChangedEvenWhenPinsMatch() {
        let host = Fixtures.host(ca: [Fixtures.spkiPin(3)])
        let report = Fixtures.report(host, Fixtures.result(chain: Fixtures.chain(intermediateKey: 7)))
        XCTAssertEqual(report.severity, .ok)
        let changed = report.with(history: HostHistory(latestChainChange: rotation(at: now)), now: now)
        XCTAssertEqual(changed.alerts.last, .chainChanged)
        XCTAssertEqual(changed.severity, .warning)
        XCTAssertEqual(
            changed.reason, "the CA-level keys changed (intermediate CN=R11 → CN=R13): pins still match, but a CA rotation may have begun")
        let nextDay = now.addingTimeInterval(CAKeyChange.hold)
        let next = report.with(history: HostHistory(latestChainChange: rotation(at: now)), now: nextDay)
        XCTAssertEqual(next.severity, .ok, "once the warning's time is over")
        XCTAssertFalse(next.alerts.contains(.chainChanged))
    }

    func testAnUnpinnedHostsChainChangeSaysNothingOfPins() {
        let report = Fixtures.report(Fixtures.host(), Fixtures.result(chain: Fixtures.chain(intermediateKey: 7)))
        XCTAssertEqual(report.status, .unpinned)
        let changed = report.with(history: HostHistory(latestChainChange: rotation(at: now)), now: now)
        XCTAssertEqual(changed.severity, .warning)
        XCTAssertEqual(changed.reason, "the CA-level keys changed (intermediate CN=R11 → CN=R13): a CA rotation may have begun")
    }

    /// The store's facts of an intermediate rotation R11 → R13 at `date`.
    private func rotation(at date: Date) -> ChainChangeFacts {
        var rotated = Fixtures.chain(intermediateKey: 7)
        rotated[1] = Fixtures.certificate("CN=R13", key: 7, daysLeft: 900, issuer: "CN=Root")
        return ChainChangeFacts(previous: observed(Fixtures.chain()), current: observed(rotated), at: date)
    }

    /// Core, not the store, decides `chain_changed` from the facts: CA keys
    /// that changed hold the warning 24 hours; a change that kept them (a
    /// leaf renewal after the rotation) is none and ends an earlier one.
    func testCoreDecidesChainChangedAndItsHoldFromTheStoresFacts() throws {
        let rotated = try XCTUnwrap(CAKeyChange(rotation(at: now)))
        XCTAssertEqual(rotated.text, "intermediate CN=R11 → CN=R13")
        XCTAssertEqual(rotated.at, now)
        XCTAssertTrue(rotated.holds(at: now.addingTimeInterval(CAKeyChange.hold - 1)))
        XCTAssertFalse(rotated.holds(at: now.addingTimeInterval(CAKeyChange.hold)))
        let facts = rotation(at: now)
        let renewal = ChainChangeFacts(
            previous: facts.current, current: observed(Fixtures.chain(leafKey: 9, intermediateKey: 7)), at: now)
        XCTAssertNil(CAKeyChange(renewal), "same CA keys, new leaf: no chain_changed")
        XCTAssertNil(CAKeyChange(nil))

        let report = Fixtures.report(Fixtures.host(ca: [Fixtures.spkiPin(3)]), Fixtures.result(chain: Fixtures.chain()))
        let history = HostHistory(latestChainChange: facts)
        let held = report.with(history: history, now: now.addingTimeInterval(3_600))
        XCTAssertEqual(held.history?.caKeysChanged, true)
        XCTAssertEqual(held.history?.caChangedAt, now)
        XCTAssertTrue(held.alerts.contains(.chainChanged))
        let over = report.with(history: history, now: now.addingTimeInterval(CAKeyChange.hold + 60))
        XCTAssertEqual(over.history?.caKeysChanged, false)
        XCTAssertEqual(over.history?.caChangedAt, now, "still counted once by serve, though no longer a warning")
        XCTAssertFalse(over.alerts.contains(.chainChanged))
        let renewed = report.with(history: HostHistory(latestChainChange: renewal), now: now)
        XCTAssertFalse(renewed.alerts.contains(.chainChanged))
        XCTAssertNil(renewed.history?.caChangedAt)
    }

    func testTheCAChangeNamesOnlyTheLevelsThatChanged() {
        var rotated = Fixtures.chain(intermediateKey: 7)
        rotated[1] = Fixtures.certificate("CN=R13", key: 7, daysLeft: 900, issuer: "CN=Root")
        XCTAssertEqual(HistoryTimeline.caChange(from: observed(Fixtures.chain()), to: observed(rotated)), "intermediate CN=R11 → CN=R13")
        let shorter = Array(Fixtures.chain().prefix(2))
        XCTAssertEqual(HistoryTimeline.caChange(from: observed(Fixtures.chain()), to: observed(shorter)), "root CN=Root no longer sent")
    }

    func testAProbeErrorNeverGetsChainChanged() {
        let report = Fixtures.report(
            Fixtures.host(ca: [Fixtures.spkiPin(3)]), ProbeResult(failure: ProbeFailure(kind: .timeout, message: "x")))
        let annotated = report.with(history: HostHistory(latestChainChange: rotation(at: now)), now: now)
        XCTAssertFalse(annotated.alerts.contains(.chainChanged))
        XCTAssertEqual(annotated.severity, .unknown)
    }
}
