import Foundation
import PinwatchCore
import XCTest

@testable import PinwatchFleet

/// Any target Prometheus scrapes can publish a series with pinwatch's
/// names: a value no pinwatch series holds (NaN, an infinity, 1e19,
/// ±1e300) is skipped and counted when the answer is read, never carried
/// into the arithmetic of ages and days left.
final class FleetSampleValueTests: XCTestCase {
    private let now = Date(timeIntervalSince1970: 1_800_000_000)

    private func answer(_ result: [[String: Any]]) throws -> Data {
        try JSONSerialization.data(withJSONObject: ["status": "success", "data": ["resultType": "vector", "result": result]])
    }

    private func sample(_ labels: [String: String], _ value: String) -> [String: Any] {
        ["metric": labels, "value": [1_800_000_000.5, value]]
    }

    private let host = ["host": "api.test", "port": "443"]

    private func reason() -> [String: Any] {
        sample(
            host.merging([
                "__name__": "pinwatch_host_reason_info", "status": "ok", "severity": "ok", "headline": "ok", "tiers": "ca",
                "reason": "fine",
            ]) { $1 }, "1")
    }

    private func level(_ level: Int) -> [String: Any] {
        sample(
            host.merging([
                "__name__": "pinwatch_chain_level_info", "level": "\(level)", "role": level == 0 ? "leaf" : "intermediate",
                "subject": "CN=\(level)",
            ]) { $1 }, "1")
    }

    private func notAfter(_ level: Int, _ value: String) -> [String: Any] {
        sample(host.merging(["__name__": "pinwatch_chain_level_not_after_timestamp_seconds", "level": "\(level)"]) { $1 }, value)
    }

    func testValuesNoPinwatchSeriesHoldsAreSkippedAndCounted() throws {
        let hostile = ["1e19", "-1e19", "1e300", "-1e300", "NaN", "+Inf", "-Inf", "9.3e18"]
        var result = [reason(), level(0), level(1)]
        result += hostile.map { sample(["__name__": "pinwatch_last_cycle_timestamp_seconds", "instance": "evil:\($0)"], $0) }
        result += hostile.map { notAfter(0, $0) }
        // The largest date a certificate may carry (9999-12-31) is a value.
        result.append(notAfter(1, "253402300799"))
        let parsed = try PrometheusVector.parse(try answer(result)).get()
        XCTAssertEqual(parsed.skipped, 2 * hostile.count)
        XCTAssertEqual(parsed.samples.count, 4)

        let fleet = FleetSnapshot(parsed)
        XCTAssertEqual(fleet.skipped, 2 * hostile.count, "counted, so the screen can say so")
        XCTAssertNil(fleet.oldestCycle, "no cycle time from a value out of range")
        let row = try XCTUnwrap(fleet.hosts.first)
        XCTAssertNil(row.levels[0].notAfter)
        XCTAssertEqual(row.levels[1].notAfter, Date(timeIntervalSince1970: 253_402_300_799))
        let report = row.report(now: now)
        XCTAssertEqual(report.levels.count, 2)
        XCTAssertGreaterThan(report.levels[1].daysLeft, 2_900_000)
    }

    /// The rows' arithmetic holds even for values a caller builds by hand.
    func testDaysLeftAreTotalForAnyDate() throws {
        let snapshot = FleetSnapshot(
            VectorAnswer(samples: [
                VectorSample(labels: reason()["metric"] as? [String: String] ?? [:], value: 1),
                VectorSample(labels: level(0)["metric"] as? [String: String] ?? [:], value: 1),
            ]))
        var row = try XCTUnwrap(snapshot.hosts.first)
        for seconds in [1e19, -1e19, 1e300, -1e300, Double.infinity, -Double.infinity] {
            row.levels[0].notAfter = Date(timeIntervalSince1970: seconds)
            let days = try XCTUnwrap(row.report(now: now).levels.first?.daysLeft)
            XCTAssertEqual(days.signum(), seconds > 0 ? 1 : -1, "\(seconds)")
        }
    }

    func testWholeNumbersFromAnyDoubleNeverTrap() {
        XCTAssertEqual(WholeNumber.clamped(.nan), 0)
        XCTAssertEqual(WholeNumber.clamped(.infinity), 1 << 53)
        XCTAssertEqual(WholeNumber.clamped(-.infinity), -(1 << 53))
        XCTAssertEqual(WholeNumber.clamped(1e300), 1 << 53)
        XCTAssertEqual(WholeNumber.clamped(-2.5), -3)
        XCTAssertEqual(WholeNumber.clamped(2.5, .toNearestOrAwayFromZero), 3)
    }
}
