import Foundation
import PinwatchProbe

/// Why a local server could not start or change.
package enum LocalServerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A socket call failed; carries the call and `strerror`.
    case socket(String)
    /// The identity could not be loaded into a TLS context.
    case tls(String)

    package var description: String {
        switch self {
        case .socket(let reason): return "local server socket: \(reason)"
        case .tls(let reason): return "local TLS server: \(reason)"
        }
    }
}
