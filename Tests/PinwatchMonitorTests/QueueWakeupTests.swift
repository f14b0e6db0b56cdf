import CLinux
import Dispatch
import Foundation
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
    /// running it kept. Here the work hops on to a second queue, as a
    /// drained batch does to the caller's queue; through `async` the heap
    /// grew several times the bound (Benchmarks/README.md, "Soak").
    func testHandingOverFromAPlainThreadLeavesTheHeapWhereItWas() {
        let queue = DispatchQueue(label: "pinwatch.test.wakeup.finishing")
        let callers = DispatchQueue(label: "pinwatch.test.wakeup.caller")
        let wakeup = QueueWakeup(queue: queue)
        let finished = DispatchSemaphore(value: 0)
        let growth = Measured()
        let thread = Thread {
            let ran = DispatchSemaphore(value: 0)
            func handOver() {
                wakeup.run { callers.async { ran.signal() } }
                ran.wait()
            }
            for _ in 0..<3_000 { handOver() }
            let before = Self.heapInUse()
            for _ in 0..<20_000 { handOver() }
            growth.bytes = Self.heapInUse() - before
            finished.signal()
        }
        thread.start()
        XCTAssertEqual(finished.wait(timeout: .now() + 60), .success)
        XCTAssertLessThan(growth.bytes, 128 * 1024, "the heap grew by \(growth.bytes) bytes over 20,000 hand-overs")
    }

    private static func heapInUse() -> Int {
        let figures = mallinfo2()
        return Int(figures.uordblks) + Int(figures.hblkhd)
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
