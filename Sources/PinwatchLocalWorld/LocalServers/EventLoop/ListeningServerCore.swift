import Foundation
import PinwatchProbe

/// The listening socket of one local server and the connections it owns.
///
/// Shared by every kind of local peer; each kind only supplies how a fresh
/// connection is handled. Lives on the loop thread: the public server
/// object holds it, the loop holds it while registered, and nothing here
/// refers back to the public object, so dropping that object can stop it.
package final class ListeningServerCore: LoopHandler {
    package typealias ConnectionFactory = (_ socket: Socket, _ owner: ListeningServerCore) -> ServerConnection?

    package let socket: Socket
    package let port: Int
    package let statistics = ConnectionStatistics()
    private let loop: LocalEventLoop
    private let makeConnection: ConnectionFactory
    private var connections: [ObjectIdentifier: ServerConnection] = [:]
    private var stopped = false

    /// Bounds one round of accepts so that a flood on one server cannot
    /// starve the others sharing the loop.
    private static let acceptsPerRound = 64

    package init(port: Int = 0, loopback: String = "127.0.0.1", makeConnection: @escaping ConnectionFactory) throws {
        loop = try LocalEventLoop.shared()
        do {
            (socket, self.port) = try Socket.listen(port: port, loopback: loopback)
        } catch {
            throw LocalServerError.socket(error.description)
        }
        self.makeConnection = makeConnection
        loop.execute { [self] in
            if !stopped { loop.register(self) }
        }
    }

    package var fileDescriptor: Int32 { socket.descriptor }
    package var isListener: Bool { true }
    package var pollEvents: Int16 { Int16(POLLIN) }

    package func handle(events: Int16) {
        for _ in 0..<Self.acceptsPerRound {
            guard let accepted = socket.accept() else { return }
            guard let connection = makeConnection(accepted, self) else {
                accepted.close()
                continue
            }
            connections[ObjectIdentifier(connection)] = connection
            loop.register(connection)
            loop.census.opened(connection, on: statistics)
            connection.start()
        }
    }

    /// Ends a connection: out of the loop, socket closed, no longer counted.
    /// Connections call it once, when they finish for whatever reason.
    package func close(_ connection: ServerConnection) {
        deregister(connection)
        connection.socket.close()
        connectionClosed(connection)
    }

    /// Called by a connection once it has deregistered and closed.
    package func connectionClosed(_ connection: ServerConnection) {
        if connections.removeValue(forKey: ObjectIdentifier(connection)) != nil {
            loop.census.closed(connection)
        }
    }

    /// Registers a second descriptor a connection owns (a proxy's upstream).
    func registerAuxiliary(_ handler: LoopHandler) {
        loop.register(handler)
    }

    package func deregister(_ handler: LoopHandler) {
        loop.deregister(handler)
    }

    /// Closes the listener and every connection; idempotent; any thread.
    package func stop() {
        loop.executeAndWait { [self] in
            guard !stopped else { return }
            stopped = true
            loop.deregister(self)
            socket.close()
            for connection in Array(connections.values) {
                connection.abort()
            }
        }
    }
}
