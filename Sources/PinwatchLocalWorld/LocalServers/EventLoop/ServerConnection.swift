import Foundation
import PinwatchProbe

/// A connection a listener accepted and owns until it closes.
package protocol ServerConnection: LoopHandler {
    var socket: Socket { get }
    var owner: ListeningServerCore { get }
    /// Set by `finish` alone; a closed connection handles nothing more.
    var closed: Bool { get set }
    /// Starts work right after registration (e.g. the plaintext greeting).
    func start()
    /// Releases what the connection owns besides its socket (a proxy's
    /// upstream), right before the socket closes.
    func willClose()
}

extension ServerConnection {
    package var fileDescriptor: Int32 { socket.descriptor }
    package func start() {}
    package func willClose() {}

    /// The one way a connection ends, whatever the reason (peer gone,
    /// stall, server stop): once, out of the loop, socket closed, no longer
    /// counted.
    package func finish() {
        guard !closed else { return }
        closed = true
        willClose()
        owner.close(self)
    }

    /// Closes at once (server stop).
    package func abort() {
        finish()
    }

    package func deadlinePassed() {
        finish()
    }
}
