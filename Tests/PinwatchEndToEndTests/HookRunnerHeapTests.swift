import CLinux
import Dispatch
import Foundation
import PinwatchCore
import PinwatchMonitor
import XCTest

/// A long hook storm leaves the heap where it was: the runner's own threads
/// take the runs, and their reports reach the caller's queue through a
/// wake-up, as `watch`'s reach the dashboard. Through a dispatch queue,
/// each run's `async` from the runner's thread left a continuation in the
/// cache of the worker that ran it, and `watch`'s heap climbed in the soak
/// by one a run (Benchmarks/README.md, "Soak").
final class HookRunnerHeapTests: XCTestCase {
    func testAStormOfRunsLeavesTheHeapWhereItWas() throws {
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
        let before = Self.heapInUse()
        XCTAssertTrue(storm(rounds: 150), "the storm's runs never finished: \(runner.currentCounts)")
        let grown = Self.heapInUse() - before
        XCTAssertLessThan(grown, 48 * 1024, "the heap grew by \(grown) bytes over \(150 * transitions.count) runs")
    }

    private static func heapInUse() -> Int {
        let figures = mallinfo2()
        return Int(figures.uordblks) + Int(figures.hblkhd)
    }
}
