import Foundation
import PinwatchProbe

/// A TCP server on 127.0.0.1 that accepts and never answers a byte.
///
/// The shape of a firewall that swallows packets after the handshake or a
/// wedged TLS terminator: the probe's deadline must fire. Connections stay
/// open until the client leaves or the server stops.
///
/// `@unchecked Sendable`: socket work runs on the loop thread, counters
/// are locked.
package final class BlackHoleServer: LocalServer, @unchecked Sendable {
    package let core: ListeningServerCore

    package init() throws {
        core = try ListeningServerCore { socket, owner in
            RawConnection(socket: socket, owner: owner, greeting: nil, stallTimeout: nil)
        }
    }

    deinit {
        core.stop()
    }
}
