import Foundation

/// When an acknowledgement ends, as people write it: `2026-12-15` (the
/// end of that day in UTC, so a silence until the 15th still holds on the
/// 15th wherever the exporter runs), an RFC 3339 timestamp
/// (`2026-12-15T18:00:00+01:00`), or on the dashboard a duration from now
/// (`7d`, `12h`, `30m`).
public enum AcknowledgementUntil {
    /// A date or timestamp; nil for anything else (the caller says why).
    public static func parseDate(_ text: String) -> Date? {
        let trimmed = text.trimmingWhitespace()
        if let day = dayStart(trimmed) { return day.addingTimeInterval(86_400) }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        if let date = formatter.date(from: trimmed) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: trimmed)
    }

    /// A date, a timestamp or a duration (`d`, `h`, `m` units) from `now`.
    public static func parse(_ text: String, now: Date) -> Date? {
        let trimmed = text.trimmingWhitespace().lowercased()
        if let date = parseDate(trimmed.uppercased()) { return date }
        guard let unit = trimmed.last, let scale = durationUnits[unit],
            let count = Int(trimmed.dropLast()), count > 0, count <= maximumDurationCount
        else { return nil }
        return now.addingTimeInterval(Double(count) * scale)
    }

    /// Whether `parse` would read `text` at any moment: a check of its form,
    /// for a prompt that has no clock.
    public static func isWellFormed(_ text: String) -> Bool {
        parse(text, now: Date(timeIntervalSince1970: 0)) != nil
    }

    /// What `parse` accepts, for messages.
    public static let accepted = "a date (2026-12-15, the end of that day in UTC), an RFC 3339 time, or a duration (7d, 12h, 30m)"

    private static let durationUnits: [Character: TimeInterval] = ["d": 86_400, "h": 3_600, "m": 60]
    /// Ten years of days: more is a typo, not an acknowledgement.
    private static let maximumDurationCount = 3_650 * 24 * 60

    /// `YYYY-MM-DD` at 00:00 UTC, checked field by field (no 2026-02-30).
    private static func dayStart(_ text: String) -> Date? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2])
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let components = DateComponents(year: year, month: month, day: day)
        guard components.isValidDate(in: calendar), let date = calendar.date(from: components) else { return nil }
        return date
    }
}
