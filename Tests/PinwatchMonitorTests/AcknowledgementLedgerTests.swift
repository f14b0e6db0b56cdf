import Foundation
import PinwatchCore
import PinwatchMonitor
import XCTest

/// The ledger a running command keeps: the store read again at each
/// reload, a failed read keeping what was read before, time from its clock.
final class AcknowledgementLedgerTests: XCTestCase {
    /// What the store answers next, and the time: both moved by the test.
    private final class StoreReads: @unchecked Sendable {
        var next: [Acknowledgement]?
        var now = Date(timeIntervalSince1970: 1_800_000_000)
    }

    func testReloadsTheStoreKeepsItOnAFailedReadAndEndsOnTheClock() {
        let host = HostConfig(host: "down.test")
        let report = Verdict.report(
            for: host, result: ProbeResult(failure: ProbeFailure(kind: .refused, message: "refused")),
            now: Date(timeIntervalSince1970: 1_800_000_000), warnDays: 21, criticalDays: 7)
        let reads = StoreReads()
        let acknowledgement = Acknowledgement(
            hostIdentity: host.identityKey, until: reads.now + 3_600, reason: "decommissioned", by: "ana", at: reads.now,
            source: .dashboard, state: AcknowledgedState(of: report))
        let ledger = AcknowledgementLedger(readStored: { reads.next }, now: { reads.now })

        XCTAssertNil(ledger.apply([report])[0].acknowledgement, "nothing read yet")
        reads.next = [acknowledgement]
        ledger.reload()
        XCTAssertEqual(ledger.apply([report])[0].acknowledgement?.reason, "decommissioned")
        reads.next = nil
        ledger.reload()
        XCTAssertNotNil(ledger.apply([report])[0].acknowledgement, "a failed read keeps what was read before")
        reads.now += 3_600
        XCTAssertNil(ledger.apply([report])[0].acknowledgement, "over at its until, by the ledger's clock")
        reads.next = []
        ledger.reload()
        reads.now -= 3_600
        XCTAssertNil(ledger.apply([report])[0].acknowledgement, "removed from the store")
    }
}
