import Dispatch
import Foundation
import PinwatchTestSupport
import XCTest

@testable import PinwatchMonitor

final class QueueWakeupTests: XCTestCase {
    /// Work handed over from a plain thread, as a probe loop hands over
    /// results, runs on the queue, every item once, in the order handed over.
    func testWorkRunsOnTheQueueInTheOrderItWasHandedOver() {
        let queue = DispatchQueue(label: "pinwatch.test.wakeup")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let wakeup = QueueWakeup(queue: queue)
        let recorded = Recorded()
        let finished = DispatchSemaphore(value: 0)
        let count = 5_000
        let thread = Thread {
            for index in 0..<count {
                wakeup.run {
                    recorded.append(index, onQueue: DispatchQueue.getSpecific(key: key) == true)
                    if index == count - 1 { finished.signal() }
                }
            }
        }
        thread.start()
        XCTAssertEqual(finished.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(recorded.indices, Array(0..<count))
        XCTAssertEqual(recorded.offQueue, 0)
    }

    /// The leak `QueueWakeup` exists for: each `async` from a thread that
    /// runs no dispatch blocks allocated a continuation that the worker
    /// running it kept in its cache (Benchmarks/README.md, "Soak"). With
    /// `wakeup.run` replaced by `queue.async` the heap grows by a worker's
    /// cache or two, 80–170 KB, over the hand-overs; through the wake-up by
    /// a few KB at most. Measured alone: the heap is the process's.
    func testHandingOverFromAPlainThreadLeavesTheHeapWhereItWas() throws {
        guard let figures = try MeasuredAlone.figures(of: Self.self, { [Self.heapGrowthOverHandOvers()] }) else { return }
        XCTAssertLessThan(figures[0], 32 * 1024, "the heap grew by \(figures[0]) bytes over 20,000 hand-overs")
    }

    /// Bytes the heap grew by while a plain thread handed work over 20,000
    /// times, each waiting for the last to run. The few hand-overs before
    /// the measurement make the wake-up's own one-time allocations.
    private static func heapGrowthOverHandOvers() -> Int {
        let queue = DispatchQueue(label: "pinwatch.test.wakeup.finishing")
        let wakeup = QueueWakeup(queue: queue)
        let finished = DispatchSemaphore(value: 0)
        let growth = Measured()
        let thread = Thread {
            let ran = DispatchSemaphore(value: 0)
            func handOver() {
                wakeup.run { ran.signal() }
                ran.wait()
            }
            for _ in 0..<20 { handOver() }
            let before = MeasuredAlone.heapInUse()
            for _ in 0..<20_000 { handOver() }
            growth.bytes = MeasuredAlone.heapInUse() - before
            finished.signal()
        }
        thread.start()
        XCTAssertEqual(finished.wait(timeout: .now() + 60), .success, "the hand-overs never finished")
        return growth.bytes
    }
}

/// Written by the measuring thread before it signals, read after the wait.
private final class Measured: @unchecked Sendable {
    var bytes = 0
}

private final class Recorded: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var indices: [Int] = []
    private(set) var offQueue = 0

    func append(_ index: Int, onQueue: Bool) {
        lock.lock()
        indices.append(index)
        if !onQueue { offQueue += 1 }
        lock.unlock()
    }
}
