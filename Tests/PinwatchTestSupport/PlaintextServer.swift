import Foundation
import PinwatchLocalWorld
import PinwatchProbe

/// A TCP server on 127.0.0.1 that answers every connection with a plain
/// HTTP/1.0 response and closes.
///
/// What a probe meets when a TLS port is really plain HTTP (a misrouted
/// load balancer): the handshake must fail as a `tls` error, not hang.
///
/// `@unchecked Sendable`: socket work runs on the loop thread, counters
/// are locked.
package final class PlaintextServer: LocalServer, @unchecked Sendable {
    package static let defaultResponse =
        "HTTP/1.0 400 Bad Request\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\nThis port speaks plain HTTP, not TLS.\n"

    package let core: ListeningServerCore

    /// `response` is written as soon as a connection is accepted, before
    /// reading anything from the client.
    package init(response: String = PlaintextServer.defaultResponse, stallTimeout: TimeInterval = 5) throws {
        let greeting = Array(response.utf8)
        core = try ListeningServerCore { socket, owner in
            RawConnection(socket: socket, owner: owner, greeting: greeting, stallTimeout: stallTimeout)
        }
    }

    deinit {
        core.stop()
    }
}
