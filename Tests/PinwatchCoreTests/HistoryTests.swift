import Foundation
import XCTest

@testable import PinwatchCore

/// The forecast, the timeline's words and the verdict's use of history,
/// without a database.
final class HistoryTests: XCTestCase {
    private let day = Fixtures.day
    private let now = Fixtures.now

    // MARK: Renewal forecast

    func testWithoutRenewalsA90DayLeafRenewsThirtyDaysBeforeExpiry() {
        let notBefore = now.addingTimeInterval(-10 * day)
        let estimate = RenewalForecast.estimate(
            leafChanges: [], notBefore: notBefore, notAfter: notBefore.addingTimeInterval(90 * day), now: now)
        XCTAssertEqual(estimate.basis, .lifetime)
        XCTAssertEqual(estimate.date, notBefore.addingTimeInterval(60 * day))
        XCTAssertEqual(estimate.days(from: now), 50)
        XCTAssertEqual(estimate.text, "renews ~\(DateText.day(estimate.date)) (estimated)")
    }

    func testALongerLeafRenewsAtTwoThirdsOfItsLifetime() {
        let notBefore = now.addingTimeInterval(-100 * day)
        let estimate = RenewalForecast.estimate(
            leafChanges: [now.addingTimeInterval(-100 * day)], notBefore: notBefore,
            notAfter: notBefore.addingTimeInterval(396 * day), now: now)
        XCTAssertEqual(estimate.basis, .lifetime, "one change is not a cadence")
        XCTAssertEqual(estimate.date, notBefore.addingTimeInterval(264 * day))
    }

    func testTwoRenewalsGiveTheObservedCadence() {
        let changes = [now.addingTimeInterval(-40 * day), now.addingTimeInterval(-10 * day)]
        let estimate = RenewalForecast.estimate(
            leafChanges: changes, notBefore: changes[1], notAfter: changes[1].addingTimeInterval(90 * day), now: now)
        XCTAssertEqual(estimate.basis, .observed)
        XCTAssertEqual(estimate.date, now.addingTimeInterval(20 * day))
        XCTAssertEqual(estimate.cadence, 30 * day)
        XCTAssertEqual(estimate.text, "renews ~\(DateText.day(estimate.date)) (observed every 30 d)")
    }

    func testIrregularGapsUseTheMedianSoOneLateRenewalDoesNotSkewIt() {
        // Gaps 30, 30, 75 (a renewal that came late), 30: the median is 30.
        let offsets: [Double] = [-165, -135, -105, -30, 0]
        let changes = offsets.map { now.addingTimeInterval($0 * day) }
        let estimate = RenewalForecast.estimate(
            leafChanges: changes.shuffled(), notBefore: now, notAfter: now.addingTimeInterval(90 * day), now: now)
        XCTAssertEqual(estimate.basis, .observed)
        XCTAssertEqual(estimate.cadence, 30 * day)
        XCTAssertEqual(estimate.date, now.addingTimeInterval(30 * day))
    }

    func testAnOverdueRenewalIsDueNowNotInThePast() {
        let changes = [now.addingTimeInterval(-100 * day), now.addingTimeInterval(-70 * day)]
        let estimate = RenewalForecast.estimate(
            leafChanges: changes, notBefore: changes[1], notAfter: changes[1].addingTimeInterval(90 * day), now: now)
        XCTAssertEqual(estimate.date, now)
        XCTAssertEqual(estimate.days(from: now), 0)
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

    func testCAKeyChangeIsAWarningForOneCycleEvenWhenPinsMatch() {
        let host = Fixtures.host(ca: [Fixtures.spkiPin(3)])
        let report = Fixtures.report(host, Fixtures.result(chain: Fixtures.chain(intermediateKey: 7)))
        XCTAssertEqual(report.severity, .ok)
        let changed = report.with(history: HostHistory(caKeysChanged: true, previousCANames: ["CN=R11", "CN=Root"]), now: now)
        XCTAssertEqual(changed.alerts.last, .chainChanged)
        XCTAssertEqual(changed.severity, .warning)
        XCTAssertEqual(
            changed.reason, "the CA-level keys changed (was CN=R11, CN=Root): pins still match, but a CA rotation may have begun")
        let next = report.with(history: HostHistory(caKeysChanged: false), now: now)
        XCTAssertEqual(next.severity, .ok, "the next cycle is calm again")
        XCTAssertFalse(next.alerts.contains(.chainChanged))
    }

    func testAProbeErrorNeverGetsChainChanged() {
        let report = Fixtures.report(
            Fixtures.host(ca: [Fixtures.spkiPin(3)]), ProbeResult(failure: ProbeFailure(kind: .timeout, message: "x")))
        let annotated = report.with(history: HostHistory(caKeysChanged: true), now: now)
        XCTAssertFalse(annotated.alerts.contains(.chainChanged))
        XCTAssertEqual(annotated.severity, .unknown)
    }
}
