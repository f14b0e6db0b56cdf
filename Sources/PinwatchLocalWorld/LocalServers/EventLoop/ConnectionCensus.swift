import Foundation
import PinwatchProbe

#if canImport(Glibc)
import Glibc
#endif

/// Which accepted connections the client still holds, for every local
/// server of the process.
///
/// A server notices a client's close only when its loop gets round to
/// reading that socket, which may be after it has accepted the client's
/// next connection; counted naively, the peak would then include sockets
/// the client had already closed. So before a new connection is counted,
/// every open one is asked, in one `poll` with no wait, whether its peer
/// has hung up (FIN or reset already in the kernel), and those are counted
/// as closed at once. A client that only shut down its writing side counts
/// as gone too: the probe engine never does that.
///
/// Loop thread only, except the figures, which lock themselves.
package final class ConnectionCensus {
    /// Linux's "peer closed its end" poll flag; Glibc's module map leaves
    /// it out because it needs _GNU_SOURCE.
    private static let peerHungUp = Int16(0x2000)

    /// Every local server's connections together.
    package let processWide = ConnectionStatistics()
    private var counted: [ObjectIdentifier: (descriptor: Int32, server: ConnectionStatistics)] = [:]

    /// A connection was just accepted by the server keeping `server`.
    func opened(_ connection: ServerConnection, on server: ConnectionStatistics) {
        counted[ObjectIdentifier(connection)] = (connection.fileDescriptor, server)
        server.connectionOpened()
        processWide.connectionOpened()
        // The new socket is swept too: a client may already have given up on it.
        sweepHungUpPeers()
        server.recordPeak()
        processWide.recordPeak()
    }

    /// The connection's socket is closed (or about to be); a connection the
    /// sweep already counted out is not counted twice.
    func closed(_ connection: ServerConnection) {
        guard let entry = counted.removeValue(forKey: ObjectIdentifier(connection)) else { return }
        entry.server.connectionClosed()
        processWide.connectionClosed()
    }

    /// Starts a new peak from the connections open now.
    package func restartPeak() {
        sweepHungUpPeers()
        processWide.restartPeak()
    }

    private func sweepHungUpPeers() {
        guard !counted.isEmpty else { return }
        let keys = Array(counted.keys)
        var probes = keys.map { pollfd(fd: counted[$0]?.descriptor ?? -1, events: Self.peerHungUp, revents: 0) }
        guard poll(&probes, nfds_t(probes.count), 0) > 0 else { return }
        let gone = Self.peerHungUp | Int16(POLLHUP) | Int16(POLLERR)
        for (key, probe) in zip(keys, probes) where probe.revents & gone != 0 {
            guard let entry = counted.removeValue(forKey: key) else { continue }
            entry.server.connectionClosed()
            processWide.connectionClosed()
        }
    }
}
