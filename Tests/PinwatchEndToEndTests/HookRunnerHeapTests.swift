import Dispatch
import Foundation
import PinwatchCore
import PinwatchMonitor
import PinwatchTestSupport
import XCTest

/// A long hook storm leaves the heap where it was: the runner's own threads
/// take the runs, and their reports reach the caller's queue through a
/// wake-up, as `watch`'s reach the dashboard. Through a dispatch queue,
/// each run's `async` from the runner's thread left a continuation in the
/// cache of the worker that ran it, and `watch`'s heap climbed in the soak
/// by one a run (Benchmarks/README.md, "Soak"). Measured alone: the heap
/// is the process's.
final class HookRunnerHeapTests: XCTestCase {
    func testAStormOfRunsLeavesTheHeapWhereItWas() throws {
        guard let figures = try MeasuredAlone.figures(of: Self.self, { [Self.heapGrowthOverAStorm()] }) else { return }
        XCTAssertLessThan(figures[0], 24 * 1024, "the heap grew by \(figures[0]) bytes over \(Self.stormRounds) rounds of runs")
    }

    private static let stormRounds = 150

    private static func heapGrowthOverAStorm() -> Int {
        let finished = DispatchSemaphore(value: 0)
        let reports = DispatchQueue(label: "pinwatch.test.hook-reports")
        let runner = HookRunner(
            hooks: [HookCommand(arguments: ["/bin/sh", "-c", "exec cat >/dev/null"], timeout: 10)], reportQueue: reports
        ) { _ in
            dispatchPrecondition(condition: .onQueue(reports))
            finished.signal()
        }
        defer { runner.stop() }
        let transitions = (0..<HookRunner.parallelism * 2).map { HookRunnerTests.transition("storm\($0).test") }
        func storm(rounds: Int) -> Bool {
            for _ in 0..<rounds {
                runner.run(for: transitions)
                for _ in transitions where finished.wait(timeout: .now() + 20) == .timedOut { return false }
            }
            return true
        }
        XCTAssertTrue(storm(rounds: 40), "the warm-up's runs never finished: \(runner.currentCounts)")
        let before = MeasuredAlone.heapInUse()
        XCTAssertTrue(storm(rounds: stormRounds), "the storm's runs never finished: \(runner.currentCounts)")
        return MeasuredAlone.heapInUse() - before
    }
}
