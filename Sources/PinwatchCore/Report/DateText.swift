import Foundation

/// ISO-8601 in UTC with `Z` and whole seconds, as DESIGN §8 shows.
///
/// Written by hand from calendar components: no shared formatter (not
/// Sendable) and identical output on every platform.
public enum DateText {
    public static func iso8601(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? TimeZone(secondsFromGMT: 0) ?? calendar.timeZone
        let whole = Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: whole)
        func two(_ value: Int?) -> String {
            let number = value ?? 0
            return number < 10 ? "0\(number)" : "\(number)"
        }
        let year = String(parts.year ?? 0)
        let paddedYear = String(repeating: "0", count: max(0, 4 - year.count)) + year
        return "\(paddedYear)-\(two(parts.month))-\(two(parts.day))T\(two(parts.hour)):\(two(parts.minute)):\(two(parts.second))Z"
    }

    /// `2026-12-14 00:00 UTC`: how people read a certificate's dates, in
    /// every text output (inspect, pin, the detail view).
    public static func readableUTC(_ date: Date) -> String {
        let iso = iso8601(date)
        return String(iso.prefix(10)) + " " + String(iso.dropFirst(11).prefix(5)) + " UTC"
    }

    /// `2026-12-14`: a day in UTC, for forecasts and timelines.
    public static func day(_ date: Date) -> String {
        String(iso8601(date).prefix(10))
    }
}
