import Foundation
import PinwatchProbe

/// Connection counters a server updates on the loop thread and tests read
/// from theirs.
///
/// `@unchecked Sendable`: every field is read and written under `lock`.
package final class ConnectionStatistics: @unchecked Sendable {
    private let lock = NSLock()
    private var accepted = 0
    private var open = 0
    private var peak = 0
    private var handshakes = 0

    /// Counted open; the peak is updated by `recordPeak`, once the census
    /// has counted out the connections whose clients are gone.
    func connectionOpened() {
        lock.lock()
        accepted += 1
        open += 1
        lock.unlock()
    }

    func recordPeak() {
        lock.lock()
        peak = max(peak, open)
        lock.unlock()
    }

    func restartPeak() {
        lock.lock()
        peak = open
        lock.unlock()
    }

    func connectionClosed() {
        lock.lock()
        open -= 1
        lock.unlock()
    }

    func handshakeCompleted() {
        lock.lock()
        handshakes += 1
        lock.unlock()
    }

    package var acceptedConnections: Int { read { accepted } }
    package var openConnections: Int { read { open } }
    package var peakConcurrentConnections: Int { read { peak } }
    package var completedHandshakes: Int { read { handshakes } }

    private func read(_ value: () -> Int) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return value()
    }
}
