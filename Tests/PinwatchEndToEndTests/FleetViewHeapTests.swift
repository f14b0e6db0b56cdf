import Foundation
import PinwatchCore
import PinwatchFleet
import PinwatchTestSupport
import PinwatchUI
import XCTest

@testable import pinwatch

/// `snapshot --prometheus` shows one answer: its view keeps no copy of the
/// answer's rows once they are the state's reports (at 100,000 hosts those
/// copies, and the rows held beside the reports, were a quarter of the text
/// snapshot's peak: Benchmarks/README.md). `watch --prometheus` keeps each
/// instance's rows, to show them stale should the instance go.
final class FleetViewHeapTests: XCTestCase {
    private let now = Date(timeIntervalSince1970: 1_800_000_000)

    private func answer(hosts: Int) -> FleetSnapshot {
        var samples = [
            VectorSample(
                labels: ["__name__": "pinwatch_last_cycle_timestamp_seconds", "job": "pinwatch", "instance": "serve-0"],
                value: now.timeIntervalSince1970)
        ]
        for index in 0..<hosts {
            samples.append(
                VectorSample(
                    labels: [
                        "__name__": "pinwatch_host_reason_info", "job": "pinwatch", "instance": "serve-0",
                        "host": "host-\(index).fleet.example", "port": "443", "status": "ok", "severity": "ok", "headline": "ok",
                        "reason": "a CA-tier pin matches: survives leaf renewals",
                    ], value: 1))
        }
        return FleetSnapshot(samples, probeSeries: false)
    }

    /// The heap a view still holds once the state it filled is gone.
    private func heapKept(by view: inout FleetView, showing fleet: FleetSnapshot) -> Int {
        let before = MeasuredAlone.heapInUse()
        do {
            var state = DashboardState(configPath: "http://prom.test:9090", hosts: [], themeName: "default")
            _ = view.show(fleet, on: &state, config: Config(), at: now)
            XCTAssertEqual(state.hosts.count, fleet.hosts.count)
            XCTAssertEqual(state.reports.compactMap { $0 }.count, fleet.hosts.count)
        }
        return MeasuredAlone.heapInUse() - before
    }

    /// Measured alone: the heap is the process's.
    func testAViewShownOneAnswerKeepsNoCopyOfItsRows() throws {
        let measured = try MeasuredAlone.figures(of: Self.self) {
            let fleet = answer(hosts: 2_000)
            var once = FleetView(server: "http://prom.test:9090", oneAnswer: true)
            var live = FleetView(server: "http://prom.test:9090")
            _ = heapKept(by: &once, showing: answer(hosts: 10))
            return [heapKept(by: &once, showing: fleet), heapKept(by: &live, showing: fleet)]
        }
        guard let figures = measured else { return }
        let (keptOnce, keptLive) = (figures[0], figures[1])
        XCTAssertLessThan(keptOnce, 64 * 1024, "a view shown one answer kept \(keptOnce) bytes of its 2,000 rows")
        XCTAssertGreaterThan(keptLive, 2_000 * 100, "the live view keeps its instances' rows: no test")
    }
}
