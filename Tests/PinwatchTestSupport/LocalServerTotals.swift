import Foundation
import PinwatchLocalWorld
import PinwatchProbe

/// Connection figures over every local server of the process at once
/// (TLS servers, proxies, test peers).
///
/// A client probing many local servers keeps its sockets spread over all
/// of them, so only the sum shows how many it held at the same time. All
/// local servers share one event loop, which keeps these figures.
package enum LocalServerTotals {
    /// Connections accepted by any local server since the process started.
    package static var acceptedConnections: Int { figures?.acceptedConnections ?? 0 }
    /// Connections whose client has not hung up yet.
    package static var openConnections: Int { figures?.openConnections ?? 0 }
    /// The most connections open at the same time since the last
    /// `restartPeak` (or since start).
    package static var peakConcurrentConnections: Int { figures?.peakConcurrentConnections ?? 0 }

    /// Starts a new peak from the connections open now, so that one
    /// measurement is not mixed with earlier ones in the same process.
    package static func restartPeak() {
        guard let loop = try? LocalEventLoop.shared() else { return }
        loop.executeAndWait { loop.census.restartPeak() }
    }

    private static var figures: ConnectionStatistics? {
        (try? LocalEventLoop.shared())?.census.processWide
    }
}
