import Foundation

/// A clock a test moves by hand, for code that takes `now`: a certificate
/// expires or a cached verdict ages in an instant instead of a wait.
package final class SettableClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date

    package init(_ start: Date = Date()) {
        current = start
    }

    package func now() -> Date {
        lock.lock()
        defer { lock.unlock() }
        return current
    }

    package func advance(by interval: TimeInterval) {
        lock.lock()
        current += interval
        lock.unlock()
    }
}
