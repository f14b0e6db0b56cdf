import Foundation
import PinwatchProbe

/// Why a key or a certificate could not be made.
///
/// Each case carries OpenSSL's own reasons, drained from its error queue, so
/// that a failure in a test or in `pinwatch demo` names the real cause.
package enum LocalPKIError: Error, Hashable, Sendable, CustomStringConvertible {
    case keyGeneration(String)
    case keyEncoding(String)
    case issuing(String)

    package var description: String {
        switch self {
        case .keyGeneration(let reason): return "cannot generate a key: \(reason)"
        case .keyEncoding(let reason): return "cannot encode or decode a key: \(reason)"
        case .issuing(let reason): return "cannot issue a certificate: \(reason)"
        }
    }
}
