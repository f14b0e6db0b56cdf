import Foundation

/// ISO-8601 in UTC with `Z` and whole seconds, as DESIGN §8 shows.
///
/// Computed from the seconds since 1970 with the proleptic Gregorian
/// calendar (the calendar of ASN.1 times and ISO 8601), not through
/// `Calendar`: a snapshot writes several dates per host, and `Calendar`
/// lookups cost far more per date (Benchmarks/README.md, "Figures moved out
/// of code comments").
public enum DateText {
    public static func iso8601(_ date: Date) -> String {
        let interval = date.timeIntervalSince1970
        // Out of any certificate's range (and NaN): clamped rather than trapping.
        let seconds = interval.isNaN ? 0 : Int64(max(-62_135_596_800, min(253_402_300_799, interval.rounded(.down))))
        let (days, secondOfDay) = floorDivision(seconds, 86_400)
        let (year, month, day) = civilDate(daysSince1970: days)
        // Digits written into the pattern in place: building it from `String(Int)`
        // pieces cost more, and a snapshot writes seven dates per host.
        var bytes = Array("0000-00-00T00:00:00Z".utf8)
        func put(_ value: Int64, at offset: Int, width: Int) {
            var rest = value
            for position in stride(from: offset + width - 1, through: offset, by: -1) {
                bytes[position] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            }
        }
        put(year, at: 0, width: 4)
        put(month, at: 5, width: 2)
        put(day, at: 8, width: 2)
        put(secondOfDay / 3600, at: 11, width: 2)
        put(secondOfDay / 60 % 60, at: 14, width: 2)
        put(secondOfDay % 60, at: 17, width: 2)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `2026-12-14 00:00 UTC`: how people read a certificate's dates, in
    /// every text output (inspect, pin, the detail view).
    public static func readableUTC(_ date: Date) -> String {
        let iso = iso8601(date)
        return String(iso.prefix(10)) + " " + String(iso.dropFirst(11).prefix(5)) + " UTC"
    }

    /// `2026-08-21` as midnight UTC; nil for anything else.
    public static func parseDay(_ text: String) -> Date? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard text.count == 10, parts.count == 3, let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
            (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let components = DateComponents(year: year, month: month, day: day)
        guard components.isValidDate(in: calendar) else { return nil }
        return calendar.date(from: components)
    }

    /// `2026-12-14`: a day in UTC, for forecasts and timelines.
    public static func day(_ date: Date) -> String {
        String(iso8601(date).prefix(10))
    }

    /// Year, month and day of a count of days since 1970-01-01, by whole
    /// 400-year eras of 146,097 days (the shape of H. Hinnant's
    /// `civil_from_days`, with March as the first month of each year so
    /// that the leap day comes last).
    static func civilDate(daysSince1970 days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468  // days from 0000-03-01
        let (era, dayOfEra) = floorDivision(shifted, 146_097)
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let remainder = value % divisor
        return remainder < 0 ? (value / divisor - 1, remainder + divisor) : (value / divisor, remainder)
    }
}
