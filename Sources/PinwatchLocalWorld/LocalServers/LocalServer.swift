/// What every local peer (TLS server, black hole, proxy, the tests' own
/// peers) offers, so that a fleet of mixed peers is kept and stopped as one
/// list. Each peer supplies only its listening core and how it handles a
/// connection; the address, the figures and `stop` come from here.
package protocol LocalServer: AnyObject, Sendable {
    var core: ListeningServerCore { get }
}

extension LocalServer {
    /// Always 127.0.0.1: local servers never listen elsewhere.
    package var host: String { "127.0.0.1" }
    package var port: Int { core.port }
    /// TCP connections accepted since start.
    package var acceptedConnections: Int { core.statistics.acceptedConnections }
    /// Connections whose client has not hung up yet.
    package var openConnections: Int { core.statistics.openConnections }
    /// The most connections that were open at the same time, from accept
    /// until the client hangs up (checked before each accept is counted),
    /// so this is how many sockets the client held at once.
    package var peakConcurrentConnections: Int { core.statistics.peakConcurrentConnections }

    /// Closes the listener and every connection; idempotent.
    package func stop() {
        core.stop()
    }
}
