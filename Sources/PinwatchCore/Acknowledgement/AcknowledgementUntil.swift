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
        if let day = DateText.dayStart(trimmed) { return day.addingTimeInterval(86_400) }
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
        guard let unit = trimmed.last, let scale = durationUnits[unit], let count = Int(trimmed.dropLast()), count > 0,
            Double(count) * scale <= longestDuration
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
    /// Ten years: more is a typo, not an acknowledgement.
    private static let longestDuration: TimeInterval = 3_650 * 86_400
}
