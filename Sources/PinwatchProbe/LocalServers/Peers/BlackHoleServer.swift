import Foundation

/// A TCP server on 127.0.0.1 that accepts and never answers a byte.
///
/// The shape of a firewall that swallows packets after the handshake or a
/// wedged TLS terminator: the probe's deadline must fire. Connections stay
/// open until the client leaves or the server stops.
///
/// `@unchecked Sendable`: socket work runs on the loop thread, counters
/// are locked.
public final class BlackHoleServer: @unchecked Sendable {
    public let host = "127.0.0.1"
    public let port: Int
    private let core: ListeningServerCore

    public init() throws {
        core = try ListeningServerCore { descriptor, owner in
            RawConnection(descriptor: descriptor, owner: owner, greeting: nil, stallTimeout: nil)
        }
        port = core.port
    }

    deinit {
        core.stop()
    }

    public var acceptedConnections: Int { core.statistics.acceptedConnections }
    public var openConnections: Int { core.statistics.openConnections }

    /// Closes the listener and every held connection; idempotent.
    public func stop() {
        core.stop()
    }
}
