import Foundation
import PinwatchCore
import PinwatchFleet
import PinwatchUI
import XCTest

@testable import pinwatch

/// The fleet view across answers: an instance missing from one keeps its
/// last-known rows, marked stale, and is named in the banner until it
/// answers again; a host another instance now reports is not shown twice.
final class FleetViewInstancesTests: XCTestCase {
    private let start = Date(timeIntervalSince1970: 1_800_000_000)
    private let utc = TimeZone(identifier: "UTC") ?? .current

    private func answer(_ hosts: [(name: String, instance: String)], at time: Date) -> FleetSnapshot {
        var samples: [VectorSample] = []
        for instance in Set(hosts.map(\.instance)) {
            samples.append(
                VectorSample(
                    labels: ["__name__": "pinwatch_last_cycle_timestamp_seconds", "job": "pinwatch", "instance": instance],
                    value: time.timeIntervalSince1970))
        }
        for (name, instance) in hosts {
            samples.append(
                VectorSample(
                    labels: [
                        "__name__": "pinwatch_host_reason_info", "job": "pinwatch", "instance": instance, "host": name, "port": "443",
                        "status": "ok", "severity": "ok", "headline": "ok", "reason": "fine",
                    ], value: 1))
        }
        return FleetSnapshot(samples, probeSeries: false)
    }

    func testAGoneInstanceKeepsItsRowsStaleUntilItAnswersAgain() throws {
        var view = FleetView(server: "http://prom.test:9090")
        var state = DashboardState(configPath: "http://prom.test:9090", hosts: [], themeName: "default")
        let both = [("a.test", "serve-0"), ("b.test", "serve-1"), ("c.test", "serve-1")]
        _ = view.show(answer(both, at: start), on: &state, config: Config(), at: start)
        XCTAssertNil(view.goneProblem(timeZone: utc))

        let later = start.addingTimeInterval(90)
        _ = view.show(answer([("a.test", "serve-0")], at: later), on: &state, config: Config(), at: later)
        XCTAssertEqual(state.hosts.map(\.host), ["a.test", "b.test", "c.test"], "the gone instance's rows stay")
        let stale = try XCTUnwrap(state.reports[1])
        XCTAssertEqual(stale.series?.staleSince, start)
        XCTAssertTrue(stale.reason.hasPrefix("stale 1 min: serve-1 gone"), stale.reason)
        XCTAssertNil(state.reports[0]?.series?.staleSince)
        let banner = try XCTUnwrap(view.goneProblem(timeZone: utc))
        XCTAssertTrue(banner.contains("serve-1 (since 08:00:00 UTC, 2 hosts stale)"), banner)

        // b.test moved to serve-0: shown once, live; c.test still stale.
        let moved = start.addingTimeInterval(120)
        _ = view.show(answer([("a.test", "serve-0"), ("b.test", "serve-0")], at: moved), on: &state, config: Config(), at: moved)
        XCTAssertEqual(state.hosts.map(\.host), ["a.test", "b.test", "c.test"])
        XCTAssertNil(state.reports[1]?.series?.staleSince)
        XCTAssertEqual(state.reports[2]?.series?.staleSince, start)

        // serve-1 answers again: nothing stale, no banner.
        let back = start.addingTimeInterval(180)
        _ = view.show(answer(both, at: back), on: &state, config: Config(), at: back)
        XCTAssertNil(view.goneProblem(timeZone: utc))
        XCTAssertTrue(state.reports.allSatisfy { $0?.series?.staleSince == nil })
    }
}
