import Foundation

/// The longest lifetime a leaf may have when issued from a date on: the
/// CA/Browser Forum's cap or a CA family's own, shorter schedule.
public struct LifetimeRule: Hashable, Sendable {
    public var from: Date
    public var days: Int
    /// Says which rule it is, for the forecast and the reason
    /// (`SC-081v3 cap of 100 days from 2027-03-15`).
    public var text: String

    public init(from: Date, days: Int, text: String) {
        self.from = from
        self.days = days
        self.text = text
    }

    public var lifetime: TimeInterval { TimeInterval(days) * 86_400 }
}

/// Which lifetime rules bind a chain's next leaf.
public enum LifetimeRules {
    /// CA/Browser Forum ballot SC-081v3: publicly trusted TLS certificates
    /// at most 200 days from 2026-03-15, 100 days from 2027-03-15, 47 days
    /// from 2029-03-15.
    public static let sc081v3: [LifetimeRule] = [
        (2026, 200), (2027, 100), (2029, 47),
    ].map { year, days in
        LifetimeRule(from: utcDay(year, 3, 15), days: days, text: "SC-081v3 cap of \(days) days from \(year)-03-15")
    }

    /// A family's published schedule, each step named after the family
    /// (`Let's Encrypt's 64-day profile from 2027-02-10`).
    public static func rules(of family: CatalogueFamily) -> [LifetimeRule] {
        family.lifetimes.map { step in
            LifetimeRule(
                from: step.from, days: step.days,
                text: "\(family.displayName)'s \(step.days)-day profile from \(DateText.day(step.from))")
        }
    }

    /// The rules for a chain whose CA levels have these SPKI SHA-256 keys.
    /// Only a CA the catalogue knows is assumed to follow a schedule: a
    /// public family answers to the Forum's caps and its own; a private
    /// family from the configuration to its own only; an unknown CA to none
    /// (its leaves' own lifetime is all there is to go on).
    public static func rules(forCAKeys keys: [[UInt8]], catalogue: Catalogue) -> [LifetimeRule] {
        let family = catalogue.families.first { family in keys.contains(where: family.containsKey) }
        guard let family else { return [] }
        return (family.origin == "config" ? [] : sc081v3) + rules(of: family)
    }

    /// The tightest rule in force on `date`, if any binds below `lifetime`.
    public static func binding(_ rules: [LifetimeRule], on date: Date, below lifetime: TimeInterval) -> LifetimeRule? {
        rules.filter { $0.from <= date && $0.lifetime < lifetime }.min { $0.days < $1.days }
    }

    private static func utcDay(_ year: Int, _ month: Int, _ day: Int) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(from: DateComponents(year: year, month: month, day: day))!
    }
}
