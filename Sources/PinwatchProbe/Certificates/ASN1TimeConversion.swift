internal import COpenSSL
import Foundation

/// Certificate validity times as `Date`, through `struct tm` and `timegm`
/// so that the process time zone never matters.
enum ASN1TimeConversion {
    static func date(_ time: UnsafePointer<ASN1_TIME>?) -> Date {
        guard let time else { return Date(timeIntervalSince1970: 0) }
        var broken = tm()
        guard ASN1_TIME_to_tm(time, &broken) == 1 else {
            _ = OpenSSLErrorQueue.drainCodes()
            return Date(timeIntervalSince1970: 0)
        }
        return Date(timeIntervalSince1970: TimeInterval(timegm(&broken)))
    }
}
