import Foundation

extension BoundedTransfer {
    /// The same transfer, awaited on the caller's thread: for callers that
    /// already run on a thread of their own (a Certificate Transparency
    /// log's follower), where a completion would only be waited for.
    package func fetch(_ url: URL, timeout: TimeInterval) -> Ending {
        let done = DispatchSemaphore(value: 0)
        let box = EndingBox()
        start(url, timeout: timeout) { ending in
            box.set(ending)
            done.signal()
        }
        done.wait()
        return box.ending ?? .failed("the transfer ended without an answer")
    }
}

/// The ending handed from the transfer's thread to the waiting caller.
private final class EndingBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: BoundedTransfer.Ending?

    func set(_ ending: BoundedTransfer.Ending) {
        lock.lock()
        stored = ending
        lock.unlock()
    }

    var ending: BoundedTransfer.Ending? {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}
