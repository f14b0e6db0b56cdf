import Dispatch
import Foundation

/// Hands work from a thread libdispatch does not own (a probe loop's) to a
/// serial queue, in order, without a `DispatchQueue.async` per hand-over.
///
/// Why not `async`: a thread that never runs dispatch blocks has no
/// continuation cache, so each `async` from it allocates a continuation,
/// and the worker thread that runs the block keeps it in its own cache
/// (libdispatch keeps up to a thousand a thread, freed only when the thread
/// ends). A long-running `watch` or `serve` hands a batch of results over
/// several times a second, and its live heap climbed for as long as any
/// worker's cache had room. Adding to a data source allocates nothing; the
/// source wakes the queue once for however many hand-overs came meanwhile.
package final class QueueWakeup: @unchecked Sendable {
    private let lock = NSLock()
    private var ready: [@Sendable () -> Void] = []
    private let source: DispatchSourceUserDataAdd

    package init(queue: DispatchQueue) {
        source = DispatchSource.makeUserDataAddSource(queue: queue)
        source.setEventHandler { [unowned self] in self.runReady() }
        source.activate()
    }

    deinit {
        source.cancel()
    }

    /// Runs `work` on the queue after everything handed over before it.
    package func run(_ work: @escaping @Sendable () -> Void) {
        lock.lock()
        ready.append(work)
        lock.unlock()
        source.add(data: 1)
    }

    private func runReady() {
        var batch: [@Sendable () -> Void] = []
        lock.lock()
        swap(&batch, &ready)
        lock.unlock()
        for work in batch { work() }
    }
}
