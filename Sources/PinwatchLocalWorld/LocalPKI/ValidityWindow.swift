import Foundation
import PinwatchProbe

/// The notBefore/notAfter pair of a certificate to issue.
///
/// Tests and the demo need certificates that are fresh, about to expire or
/// already expired; the helpers name those cases instead of date arithmetic
/// at every call site.
package struct ValidityWindow: Hashable, Sendable {
    package var notBefore: Date
    package var notAfter: Date

    package init(notBefore: Date, notAfter: Date) {
        self.notBefore = notBefore
        self.notAfter = notAfter
    }

    /// Valid from an hour before `start` (so clock skew never makes it
    /// "not yet valid") for `days` days after `start`.
    package static func lasting(days: Double, from start: Date = Date()) -> ValidityWindow {
        ValidityWindow(notBefore: start.addingTimeInterval(-3600), notAfter: start.addingTimeInterval(days * 86400))
    }

    /// Issued `issuedDaysAgo` days before `now` and ending `days` days after
    /// it; a negative `days` makes an already expired certificate.
    package static func ending(inDays days: Double, issuedDaysAgo: Double = 60, now: Date = Date()) -> ValidityWindow {
        ValidityWindow(
            notBefore: now.addingTimeInterval(-issuedDaysAgo * 86400),
            notAfter: now.addingTimeInterval(days * 86400)
        )
    }
}
