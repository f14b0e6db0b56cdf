import Foundation

/// When a host's leaf will most likely be renewed next.
public struct RenewalEstimate: Hashable, Sendable {
    public enum Basis: String, Sendable {
        /// From the host's own renewals (at least two leaf changes seen).
        case observed
        /// From the current leaf's validity period.
        case lifetime
    }

    public var date: Date
    public var basis: Basis
    /// The typical gap between renewals, when observed.
    public var cadence: TimeInterval?

    public init(date: Date, basis: Basis, cadence: TimeInterval? = nil) {
        self.date = date
        self.basis = basis
        self.cadence = cadence
    }

    /// `renews ~2026-12-01 (observed every 30 d)` or `(estimated)`.
    public var text: String {
        let day = DateText.day(date)
        if basis == .observed, let cadence {
            return "renews ~\(day) (observed every \(Int((cadence / 86_400).rounded())) d)"
        }
        return "renews ~\(day) (estimated)"
    }

    /// Whole days from `now`, never negative: an overdue renewal is due now.
    public func days(from now: Date) -> Int {
        max(0, Int((date.timeIntervalSince(now) / 86_400).rounded(.up)))
    }
}

public enum RenewalForecast {
    private static let day: TimeInterval = 86_400

    /// `leafChanges`: when each distinct leaf was first seen, oldest first.
    /// With two or more changes the cadence is the median gap between them
    /// (one late renewal does not skew it); otherwise the leaf's lifetime
    /// decides, the way ACME clients renew: 30 days before expiry for
    /// certificates of 90 days or less, else at two thirds of the period.
    public static func estimate(leafChanges: [Date], notBefore: Date, notAfter: Date, now: Date) -> RenewalEstimate {
        let changes = leafChanges.sorted()
        if changes.count >= 3 || (changes.count == 2 && changes[1] > changes[0]) {
            let gaps = zip(changes.dropFirst(), changes).map { $0.timeIntervalSince($1) }.filter { $0 > 0 }.sorted()
            if !gaps.isEmpty {
                let median = gaps.count % 2 == 1 ? gaps[gaps.count / 2] : (gaps[gaps.count / 2 - 1] + gaps[gaps.count / 2]) / 2
                var next = changes[changes.count - 1].addingTimeInterval(median)
                // Overdue by the cadence: it can only be renewed from now on.
                if next < now { next = now }
                return RenewalEstimate(date: next, basis: .observed, cadence: median)
            }
        }
        let lifetime = notAfter.timeIntervalSince(notBefore)
        let renewal =
            lifetime <= 90 * day + 1 ? notAfter.addingTimeInterval(-30 * day) : notBefore.addingTimeInterval(lifetime * 2 / 3)
        return RenewalEstimate(date: max(renewal, min(now, notAfter)), basis: .lifetime)
    }
}
