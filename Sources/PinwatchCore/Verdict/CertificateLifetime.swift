import Foundation

/// A certificate's validity period and the share of it that has passed.
///
/// Days left alone hide what a certificate is: 20 days left is two thirds
/// of a 30-day leaf's life still ahead, and the last tenth of a 398-day
/// one. The share used is also what ACME clients renew by (at two thirds),
/// so a leaf still served past that point says its renewal is failing long
/// before its days run low.
public struct CertificateLifetime: Hashable, Sendable {
    public let notBefore: Date
    public let notAfter: Date

    public init(notBefore: Date, notAfter: Date) {
        self.notBefore = notBefore
        self.notAfter = notAfter
    }

    public init(_ facts: CertificateFacts) {
        self.init(notBefore: facts.notBefore, notAfter: facts.notAfter)
    }

    /// Zero for an inverted period: the certificate is never valid.
    public var seconds: TimeInterval { max(0, notAfter.timeIntervalSince(notBefore)) }

    /// Days to the hundredth: a "6-day" certificate is issued for 160
    /// hours (6.67 days), and notAfter being inclusive adds a second to
    /// most others, which the rounding drops.
    public var days: Double { (seconds / 86_400 * 100).rounded() / 100 }

    /// 0 until notBefore, 1 from notAfter on, the share between: a
    /// certificate not yet valid has used none of its life, and an expired
    /// one cannot have used more than all of it.
    public func used(at now: Date) -> Double {
        guard seconds > 0 else { return now >= notAfter ? 1 : 0 }
        return min(1, max(0, now.timeIntervalSince(notBefore) / seconds))
    }

    /// `90 days`, `6.7 days`, `1 day`.
    public var daysText: String { daysNumber == "1" ? "1 day" : "\(daysNumber) days" }

    /// `90-day`, `6.7-day`: before a noun.
    public var daysAdjective: String { "\(daysNumber)-day" }

    /// Whole when within an hour or so of a whole day, else to a tenth.
    private var daysNumber: String {
        let whole = days.rounded()
        if abs(days - whole) < 0.05 { return "\(Int(whole))" }
        return "\((days * 10).rounded() / 10)"
    }

    /// `72%`, to the nearest whole percent.
    public static func percent(_ share: Double) -> String {
        "\(Int((share * 100).rounded()))%"
    }
}
