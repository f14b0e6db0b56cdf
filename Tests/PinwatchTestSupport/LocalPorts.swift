import Foundation
import PinwatchLocalWorld
import PinwatchProbe

/// Ports for tests that need nothing listening.
package enum LocalPorts {
    /// A 127.0.0.1 port that was free a moment ago and is closed now:
    /// bind, read the port, close. Connecting to it is refused, unless
    /// something else grabs it in between (unlikely with ephemeral ports).
    package static func closedPort() throws -> Int {
        let (socket, port) = try Socket.listen(backlog: 1)
        socket.close()
        return port
    }
}
