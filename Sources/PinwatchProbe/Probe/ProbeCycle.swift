import Dispatch
import Foundation
import PinwatchCore

/// One pass over a list of targets: delivers each result as it arrives and
/// says when the pass is over.
///
/// Results are delivered on a private serial queue, in completion order, so
/// a slow `onResult` never holds up an event loop. Results that finish
/// while a delivery is already scheduled join it rather than each waking
/// the queue's thread. `@unchecked Sendable`: the counters and the
/// outbox are guarded by `lock`.
package final class ProbeCycle: @unchecked Sendable {
    private let lock = NSLock()
    private var remaining: Int
    private var cancelled = false
    private var finished = false
    /// Completed but not yet delivered: (index, result or nil if dropped, is the last).
    private var outbox: [(index: Int, result: ProbeResult?, last: Bool)] = []
    private var deliveryScheduled = false
    private let delivery = DispatchQueue(label: "pinwatch.probe-cycle.delivery")
    private let onResult: @Sendable (Int, ProbeResult) -> Void
    private let onFinish: @Sendable () -> Void
    private let cancelInFlight: (ProbeCycle) -> Void
    /// Results handed over on the event loop's own thread, under the lock:
    /// for callers whose `onResult` only stores (`ProbeEngine.run`), which
    /// saves a queue wake-up per host (two futex calls each).
    private let deliversInline: Bool

    init(
        count: Int, onResult: @escaping @Sendable (Int, ProbeResult) -> Void, onFinish: @escaping @Sendable () -> Void,
        deliversInline: Bool = false, cancelInFlight: @escaping (ProbeCycle) -> Void
    ) {
        remaining = count
        self.onResult = onResult
        self.onFinish = onFinish
        self.deliversInline = deliversInline
        self.cancelInFlight = cancelInFlight
    }

    /// Stops the cycle: queued targets are not probed, probes in flight are
    /// closed, no further `onResult` is made; `onFinish` still comes once.
    package func cancel() {
        lock.lock()
        let first = !cancelled
        cancelled = true
        lock.unlock()
        if first { cancelInFlight(self) }
    }

    /// True once `onFinish` has been called (or is being called).
    package var isFinished: Bool {
        lock.lock()
        defer { lock.unlock() }
        return finished
    }

    var isCancelled: Bool {
        lock.lock()
        defer { lock.unlock() }
        return cancelled
    }

    /// A cycle with no targets finishes at once.
    func finishWithoutTargets() {
        lock.lock()
        finished = true
        lock.unlock()
        let onFinish = self.onFinish
        delivery.async { onFinish() }
    }

    /// One target is done: with a result, or nil when it was dropped.
    func complete(index: Int, result: ProbeResult?) {
        if deliversInline {
            completeInline(index: index, result: result)
            return
        }
        lock.lock()
        remaining -= 1
        let last = remaining == 0
        if last { finished = true }
        outbox.append((index, !cancelled ? result : nil, last))
        let schedule = !deliveryScheduled
        deliveryScheduled = true
        lock.unlock()
        if schedule {
            delivery.async { [self] in deliverOutbox() }
        }
    }

    /// `onResult` runs under the lock, so every result is stored before
    /// the last completion can call `onFinish`.
    private func completeInline(index: Int, result: ProbeResult?) {
        lock.lock()
        if let result, !cancelled { onResult(index, result) }
        remaining -= 1
        let last = remaining == 0
        if last { finished = true }
        lock.unlock()
        if last { onFinish() }
    }

    /// Delivers until the outbox stays empty; runs on `delivery` only.
    private func deliverOutbox() {
        while true {
            lock.lock()
            let batch = outbox
            outbox.removeAll(keepingCapacity: true)
            if batch.isEmpty { deliveryScheduled = false }
            // Cancelling stops results still waiting here, too.
            let dropResults = cancelled
            lock.unlock()
            if batch.isEmpty { return }
            for entry in batch {
                if let result = entry.result, !dropResults { onResult(entry.index, result) }
                if entry.last { onFinish() }
            }
        }
    }
}
