import Foundation
import PinwatchCore
import PinwatchFleet
import PinwatchUI
import XCTest

@testable import pinwatch

/// The fleet view over a window of the fleet: the header counts what
/// Prometheus counted, the note says which rows are loaded, and a window
/// that covers the fleet counts its rows as before.
final class FleetViewWindowTests: XCTestCase {
    private let now = Date(timeIntervalSince1970: 1_800_000_000)

    private func window(rows: [(String, HostSeverity, HostStatus)], counts: FleetCounts) -> FleetWindow {
        var samples = [
            VectorSample(
                labels: ["__name__": "pinwatch_last_cycle_timestamp_seconds", "job": "pinwatch", "instance": "serve:1"],
                value: now.timeIntervalSince1970)
        ]
        for (host, severity, status) in rows {
            samples.append(
                VectorSample(
                    labels: [
                        "__name__": "pinwatch_host_reason_info", "job": "pinwatch", "instance": "serve:1", "host": host, "port": "443",
                        "status": status.rawValue, "severity": severity.rawValue, "headline": status.rawValue, "reason": "why",
                    ], value: 1))
        }
        return FleetWindow(snapshot: FleetSnapshot(samples, probeSeries: false), counts: counts)
    }

    func testTheHeaderCountsTheFleetWhileTheWindowLeavesRowsOut() throws {
        let blocked = FleetCounts.Group(severity: .critical, status: .blocked, headline: .blocked)
        var counts = FleetCounts()
        counts.rows[blocked] = 3
        counts.acknowledged[blocked] = 1
        counts.rows[FleetCounts.Group(severity: .ok, status: .ok, headline: .ok)] = 99_997
        counts.disagreeing = 2
        var view = FleetView(server: "http://prom.test:9090")
        var state = DashboardState(configPath: "http://prom.test:9090", hosts: [], themeName: "default")
        let worst = window(rows: [("a.test", .critical, .blocked), ("b.test", .critical, .blocked)], counts: counts)
        _ = view.show(worst, on: &state, config: Config(), at: now, canLoadMore: true)

        XCTAssertEqual(state.hosts.count, 2)
        let tally = try XCTUnwrap(state.fleetTally)
        XCTAssertEqual(tally.hosts, 100_000)
        XCTAssertEqual(tally.severities[.critical], 2, "the acknowledged host is counted apart")
        XCTAssertEqual(tally.acknowledged, 1)
        XCTAssertEqual(tally.headlines[.blocked], HeadlineTally(count: 3, worst: .critical))
        let note = view.note(for: state, now: now)
        XCTAssertTrue(note.contains("rows 1–2 of 100000 (worst first; scroll down for more)"), note)
        XCTAssertTrue(note.contains("≠ vantages disagree on 2 (none loaded)"), note)

        // Every row loaded: the rows are counted, as for a local fleet.
        var small = FleetCounts()
        small.rows[blocked] = 2
        _ = view.show(worst.withCounts(small), on: &state, config: Config(), at: now, canLoadMore: true)
        XCTAssertNil(state.fleetTally)
        XCTAssertFalse(view.note(for: state, now: now).contains("rows 1–"))
    }
}

extension FleetWindow {
    fileprivate func withCounts(_ counts: FleetCounts) -> FleetWindow {
        var window = self
        window.counts = counts
        return window
    }
}
