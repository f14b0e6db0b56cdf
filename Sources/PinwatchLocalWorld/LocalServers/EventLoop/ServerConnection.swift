import Foundation
import PinwatchProbe

/// A connection a listener accepted and owns until it closes.
package protocol ServerConnection: LoopHandler {
    /// Starts work right after registration (e.g. the plaintext greeting).
    func start()
    /// Closes at once (server stop): deregisters and releases everything.
    func abort()
}

extension ServerConnection {
    package func start() {}
}
