import Foundation
import PinwatchCore
import XCTest

@testable import PinwatchFleet

/// What the rows carry beyond the verdict comes from the series that say
/// it (acknowledgement, labels and runbook, each probe's status, the probe's
/// duration, which levels have pins), and `/probe` scrapes are not rows
/// unless a selector asks for them.
final class FleetSeriesFactsTests: XCTestCase {
    private let now = Date(timeIntervalSince1970: 1_800_000_000)
    private let exporter = ["job": "pinwatch", "instance": "serve-a:9715"]

    private func sample(_ labels: [String: String], _ value: Double = 1) -> VectorSample {
        VectorSample(labels: labels, value: value)
    }

    private func host(_ name: String, _ extra: [String: String], from exporter: [String: String]) -> [String: String] {
        exporter.merging(["host": name, "port": "443"]) { $1 }.merging(extra) { $1 }
    }

    private func reason(_ name: String, from exporter: [String: String]) -> VectorSample {
        sample(
            host(
                name,
                [
                    "__name__": "pinwatch_host_reason_info", "status": "blocked", "severity": "critical", "headline": "blocked",
                    "reason": "no configured pin matches the chain",
                ],
                from: exporter))
    }

    private var samples: [VectorSample] {
        let api = { (extra: [String: String]) in self.host("api.test", extra, from: self.exporter) }
        return [
            sample(exporter.merging(["__name__": "pinwatch_last_cycle_timestamp_seconds"]) { $1 }, 1_799_999_990),
            sample(exporter.merging(["__name__": "pinwatch_poll_interval_seconds"]) { $1 }, 30),
            reason("api.test", from: exporter),
            sample(api(["__name__": "pinwatch_chain_level_info", "level": "0", "role": "leaf", "subject": "CN=api.test"])),
            sample(api(["__name__": "pinwatch_chain_level_info", "level": "1", "role": "intermediate", "subject": "CN=CA"])),
            sample(api(["__name__": "pinwatch_pin_match", "level": "1", "tier": "ca"]), 0),
            sample(api(["__name__": "pinwatch_host_acknowledged"])),
            sample(api(["__name__": "pinwatch_host_labels", "team": "payments", "env": "", "runbook": "https://runbooks.test/api"])),
            sample(api(["__name__": "pinwatch_probe_duration_seconds"]), 0.25),
            sample(api(["__name__": "pinwatch_address_status", "address": "192.0.2.2", "status": "ok"]), 1),
            sample(api(["__name__": "pinwatch_address_status", "address": "192.0.2.2", "status": "blocked"]), 0),
            sample(api(["__name__": "pinwatch_address_status", "address": "192.0.2.1", "status": "blocked"]), 1),
            // A /probe scrape: the same names, from a job that reports no cycle.
            reason("adhoc.test", from: ["job": "pinwatch-probe", "instance": "adhoc.test:443"]),
        ]
    }

    func testTheRowCarriesWhatItsSeriesSay() throws {
        let fleet = FleetSnapshot(samples, probeSeries: false)
        XCTAssertEqual(fleet.hosts.map(\.host), ["api.test"])
        XCTAssertEqual(fleet.probeRows, 1)
        XCTAssertEqual(fleet.pollInterval, 30)
        XCTAssertEqual(fleet.instances.map(\.instance), ["serve-a:9715"])
        let row = try XCTUnwrap(fleet.hosts.first)
        XCTAssertTrue(row.acknowledged)
        XCTAssertEqual(row.labels, ["team": "payments"], "an empty label is a host without it")
        XCTAssertEqual(row.runbook, "https://runbooks.test/api")
        XCTAssertEqual(row.probes.map(\.address), ["192.0.2.1", "192.0.2.2"])
        XCTAssertEqual(row.probes.map(\.status), [.blocked, .ok])

        let report = row.report(now: now)
        XCTAssertEqual(report.acknowledgement?.source, .instance, "out of the banner, the bell and the counts")
        XCTAssertEqual(report.config.labels, ["team": "payments"])
        XCTAssertEqual(report.config.runbook, "https://runbooks.test/api")
        XCTAssertEqual(report.result.finishedAt, Date(timeIntervalSince1970: 1_799_999_990), "the instance's cycle, not the query")
        let series = try XCTUnwrap(report.series)
        XCTAssertEqual(series.pinnedLevels, [1], "a CA pin that does not match is ✗, not ·")
        XCTAssertEqual(series.datedLevels, [])
        XCTAssertEqual(series.elapsed, 0.25)
        XCTAssertEqual(series.instance, "serve-a:9715")
        XCTAssertTrue(report.levels[1].matches.isEmpty)
    }

    func testASelectorKeepsProbeRows() {
        XCTAssertEqual(FleetSnapshot(samples, probeSeries: true).hosts.map(\.host), ["adhoc.test", "api.test"])
    }

    func testAStaleRowSaysHowOldAndWhoseItIs() throws {
        var row = try XCTUnwrap(FleetSnapshot(samples, probeSeries: false).hosts.first)
        row.staleSince = now.addingTimeInterval(-150)
        let report = row.report(now: now)
        XCTAssertEqual(report.reason, "stale 2 min: serve-a:9715 gone, last known: no configured pin matches the chain")
        XCTAssertEqual(report.severity, .critical, "a gone instance's critical host stays critical")
        XCTAssertEqual(report.series?.staleSince, now.addingTimeInterval(-150))
    }
}
