import Foundation
import PinwatchProbe

/// One file descriptor watched by the shared event loop.
///
/// Every method is called on the loop thread only, so implementations keep
/// their state without locks.
package protocol LoopHandler: AnyObject {
    var fileDescriptor: Int32 { get }
    /// `poll` events wanted now (POLLIN/POLLOUT); 0 skips the descriptor.
    var pollEvents: Int16 { get }
    /// Monotonic time (`DispatchTime.uptimeNanoseconds`) after which the
    /// handler gives up; nil for none.
    var deadline: UInt64? { get }
    /// Listeners run after connections in each round, so that a close and
    /// the next accept seen together are counted in that order.
    var isListener: Bool { get }
    func handle(events: Int16)
    func deadlinePassed()
}

extension LoopHandler {
    package var isListener: Bool { false }
    package var deadline: UInt64? { nil }
    package func deadlinePassed() {}
}

/// Monotonic nanoseconds for handler deadlines.
package enum MonotonicClock {
    package static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    package static func after(seconds: TimeInterval) -> UInt64 {
        now() + UInt64(max(0, seconds) * 1_000_000_000)
    }
}
