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
    /// The current leaf's expiry: the renewal cannot come later.
    public var leafExpiry: Date?
    /// The lifetime rule that caps the leaf issued at this renewal
    /// (`SC-081v3 cap of 100 days from 2027-03-15`); nil when none binds
    /// below the current leaf's lifetime. It shortens the next leaf, never
    /// the one already issued, so it never moves `date`.
    public var rule: String?

    public init(date: Date, basis: Basis, cadence: TimeInterval? = nil, leafExpiry: Date? = nil, rule: String? = nil) {
        self.date = date
        self.basis = basis
        self.cadence = cadence
        self.leafExpiry = leafExpiry
        self.rule = rule
    }

    /// `renews ~2026-12-01 (observed every 30 d)`, `(estimated)` or
    /// `(estimated; next leaf: SC-081v3 cap of 100 days from 2027-03-15)`.
    public var text: String {
        let day = DateText.day(date)
        if basis == .observed, let cadence {
            return "renews ~\(day) (observed every \(Int((cadence / 86_400).rounded())) d)"
        }
        return "renews ~\(day) (estimated\(rule.map { "; next leaf: \($0)" } ?? ""))"
    }

    /// Whole days from `now`. An overdue renewal may come any day: 1, not
    /// 0, which only a leaf that expires within the day earns.
    public func days(from now: Date) -> Int {
        let days = Int((date.timeIntervalSince(now) / 86_400).rounded(.up))
        if days > 0 { return days }
        if let leafExpiry, leafExpiry.timeIntervalSince(now) < 86_400 { return 0 }
        return 1
    }
}

public enum RenewalForecast {
    private static let day: TimeInterval = 86_400

    /// `issued`: when each distinct leaf the host served was issued (its
    /// `notBefore`; when pinwatch first saw it says nothing of the host's
    /// cadence). Leaves issued within a day of each other are one renewal
    /// (backends serving different leaves). With at least two renewals
    /// between them the cadence is the median gap (one late renewal does
    /// not skew it); otherwise the leaf's lifetime decides, the way ACME
    /// clients renew: 30 days before expiry for certificates of 90 days or
    /// less, else at two thirds of the period.
    ///
    /// `rules` (`LifetimeRules`): a cap binds the leaf issued at the
    /// renewal, not the leaf already issued, which keeps its own lifetime
    /// and so its own renewal date; the rule in force on that date is
    /// named so that the rhythm after it is not a surprise.
    public static func estimate(
        issued: [Date], notBefore: Date, notAfter: Date, now: Date, rules: [LifetimeRule] = []
    ) -> RenewalEstimate {
        var renewals: [Date] = []
        for date in issued.sorted() where renewals.last.map({ date.timeIntervalSince($0) >= day }) ?? true {
            renewals.append(date)
        }
        let gaps = zip(renewals.dropFirst(), renewals).map { $0.timeIntervalSince($1) }.sorted()
        if gaps.count >= 2 {
            let median = gaps.count % 2 == 1 ? gaps[gaps.count / 2] : (gaps[gaps.count / 2 - 1] + gaps[gaps.count / 2]) / 2
            // Never later than the leaf's expiry; overdue, it can only come from now on.
            let next = max(min(renewals[renewals.count - 1].addingTimeInterval(median), notAfter), min(now, notAfter))
            return RenewalEstimate(date: next, basis: .observed, cadence: median, leafExpiry: notAfter)
        }
        let lifetime = notAfter.timeIntervalSince(notBefore)
        let renewal = notBefore.addingTimeInterval(renewalAge(lifetime: lifetime))
        let earliest = min(now, notAfter)
        let next = LifetimeRules.binding(rules, on: renewal, below: lifetime)
        return RenewalEstimate(date: max(renewal, earliest), basis: .lifetime, leafExpiry: notAfter, rule: next?.text)
    }

    /// How old a leaf of `lifetime` is when ACME clients renew it.
    static func renewalAge(lifetime: TimeInterval) -> TimeInterval {
        lifetime <= 90 * day + 1 ? lifetime - 30 * day : lifetime * 2 / 3
    }
}
