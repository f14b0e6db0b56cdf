import PinwatchCore
import XCTest

@testable import PinwatchUI

final class BellTests: XCTestCase {
    private let host = Fixture.host("api.example")

    /// `unpinned` comes of the same host with its pins taken out of the configuration.
    private func record(_ state: inout DashboardState, _ status: HostStatus, leafDays: Int = 60, minute: Double) -> Bool {
        let probed = status == .unpinned ? Fixture.host(host.host, pins: PinSet()) : host
        return state.record(
            Fixture.report(for: probed, status: status, leafDays: leafDays), forHost: 0, at: Fixture.now.addingTimeInterval(minute * 60))
    }

    /// The bell follows the verdict's severity: it rings once per change
    /// for the worse, never while a host stays where it is.
    func testBellRingsWhenTheSeverityGetsWorse() {
        var state = DashboardState(configPath: "c.yaml", hosts: [host])
        XCTAssertFalse(record(&state, .ok, minute: 0))
        XCTAssertTrue(record(&state, .leafOnly, minute: 1), "ok → warning")
        XCTAssertFalse(record(&state, .leafOnly, minute: 2), "staying leaf_only is silent")
        XCTAssertTrue(record(&state, .blocked, minute: 3), "warning → critical")
        XCTAssertFalse(record(&state, .blocked, minute: 4))
        XCTAssertFalse(record(&state, .ok, minute: 5), "getting better is silent")
        XCTAssertTrue(record(&state, .error, minute: 6), "ok → error (unknown) rings: the host went dark")
        XCTAssertFalse(record(&state, .error, minute: 7))
        XCTAssertFalse(record(&state, .unpinned, minute: 8))
    }

    func testCriticalExpiryOnAnOkHostRings() {
        var state = DashboardState(configPath: "c.yaml", hosts: [host])
        XCTAssertFalse(record(&state, .ok, leafDays: 30, minute: 0))
        XCTAssertTrue(record(&state, .ok, leafDays: 20, minute: 1), "expiring: ok → warning")
        XCTAssertTrue(record(&state, .ok, leafDays: 4, minute: 2), "critical_expiry on an ok host: warning → critical")
        XCTAssertFalse(record(&state, .ok, leafDays: 3, minute: 3))
    }

    func testFirstResultInABadStateRings() {
        var state = DashboardState(configPath: "c.yaml", hosts: [host])
        XCTAssertTrue(record(&state, .blocked, minute: 0))
        var other = DashboardState(configPath: "c.yaml", hosts: [host])
        XCTAssertTrue(record(&other, .leafOnly, minute: 0))
    }

    func testGainingExpiredRingsOnce() {
        var state = DashboardState(configPath: "c.yaml", hosts: [host])
        XCTAssertFalse(record(&state, .unpinned, leafDays: 30, minute: 0))
        XCTAssertTrue(record(&state, .unpinned, leafDays: -1, minute: 1))
        XCTAssertFalse(record(&state, .unpinned, leafDays: -2, minute: 2))
    }

    func testStatusSinceChangesOnlyWithTheStatus() {
        var state = DashboardState(configPath: "c.yaml", hosts: [host])
        _ = record(&state, .ok, minute: 0)
        _ = record(&state, .ok, minute: 10)
        XCTAssertEqual(state.statusSince[0], Fixture.now)
        _ = record(&state, .leafOnly, minute: 20)
        XCTAssertEqual(state.statusSince[0], Fixture.now.addingTimeInterval(1200))
    }

    func testOutOfRangeIndexIsIgnored() {
        var state = DashboardState(configPath: "c.yaml", hosts: [host])
        XCTAssertFalse(state.record(Fixture.report(for: host, status: .blocked), forHost: 3, at: Fixture.now))
        XCTAssertNil(state.reports[0])
    }

    func testCycleProgress() {
        var state = DashboardState(configPath: "c.yaml", hosts: [host])
        state.beginCycle(total: 1, at: Fixture.now)
        XCTAssertTrue(state.isProbing)
        _ = record(&state, .ok, minute: 0)
        XCTAssertEqual(state.cycleCompleted, 1)
        _ = record(&state, .ok, minute: 0)
        XCTAssertEqual(state.cycleCompleted, 1, "never more than the total")
        state.finishCycle(at: Fixture.now)
        XCTAssertFalse(state.isProbing)
        XCTAssertEqual(state.lastCycleFinishedAt, Fixture.now)
    }
}
