import Foundation
import XCTest

@testable import PinwatchCore

/// README's metrics table: the per-cycle count of failed probes is no longer
/// one letter from the per-host series, the standard `process_*` series
/// are rendered from given figures, and help texts say when a series is
/// absent.
final class MetricNamesTests: XCTestCase {
    private typealias F = Fixtures

    func testCycleProbeErrorsAreNamedApartFromThePerHostSeries() {
        let failed = F.report(F.host(ca: [F.spkiPin(3)]), ProbeResult(failure: ProbeFailure(kind: .timeout, message: "x")))
        let text = PrometheusExposition.render(
            [failed], cycle: .init(finishedAt: F.now, duration: 1, completedCycles: 1), version: "0")
        XCTAssertTrue(text.contains("# TYPE pinwatch_cycle_probe_errors gauge\n"), text)
        XCTAssertTrue(text.contains("pinwatch_cycle_probe_errors{kind=\"timeout\"} 1\n"), text)
        XCTAssertTrue(text.contains("pinwatch_probe_error{host=\""), text)
        // The old name, deprecated a release ago, is gone.
        XCTAssertFalse(text.contains("pinwatch_probe_errors"), text)
    }

    func testHelpTextsSayWhenASeriesIsAbsent() {
        let text = PrometheusExposition.render(
            [F.report(F.host(ca: [F.spkiPin(3)]), F.result(chain: F.chain()))],
            cycle: .init(finishedAt: F.now, duration: 1, completedCycles: 1, interval: 60), version: "0")
        for family in [
            "pinwatch_host_alert", "pinwatch_leaf_not_after_timestamp_seconds", "pinwatch_chain_not_after_timestamp_seconds",
            "pinwatch_next_chain_survives", "pinwatch_probe_error", "pinwatch_cycle_duration_seconds",
            "pinwatch_poll_interval_seconds",
        ] {
            let help = text.split(separator: "\n").first { $0.hasPrefix("# HELP \(family) ") }
            let said = help.map { $0.contains("absent") || $0.contains("only") } ?? false
            XCTAssertTrue(said, "\(family): \(help ?? "no HELP")")
        }
    }

    func testProcessSeriesHaveTheClientLibrariesNamesAndLeaveOutWhatWasNotRead() {
        let text = PrometheusExposition.process(
            ProcessFigures(
                residentMemoryBytes: 12_345_678, openDescriptors: 17, maximumDescriptors: 1_024, startTime: 1_790_000_000.5,
                cpuSeconds: 2.25))
        XCTAssertTrue(text.contains("# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total 2.250\n"), text)
        XCTAssertTrue(text.contains("# TYPE process_open_fds gauge\nprocess_open_fds 17\n"), text)
        XCTAssertTrue(text.contains("process_max_fds 1024\n"), text)
        XCTAssertTrue(text.contains("process_resident_memory_bytes 12345678\n"), text)
        XCTAssertTrue(text.contains("process_start_time_seconds 1790000000.500\n"), text)
        let partial = PrometheusExposition.process(ProcessFigures(openDescriptors: 3))
        XCTAssertEqual(
            partial, "# HELP process_open_fds Number of open file descriptors.\n# TYPE process_open_fds gauge\nprocess_open_fds 3\n")
    }
}
