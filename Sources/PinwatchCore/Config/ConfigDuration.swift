import Foundation

/// `interval:` and `timeout:` values: `500ms`, `60s`, `5m`, `1h`, or a bare
/// number of seconds.
public enum ConfigDuration {
    private static let units: [(suffix: String, seconds: Double)] = [
        ("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600),
    ]

    /// Nil for anything else, including zero and negative values: a zero
    /// interval would spin and a zero timeout could never succeed.
    public static func parse(_ text: String) -> TimeInterval? {
        let trimmed = text.trimmingWhitespace().lowercased()
        var number = Substring(trimmed)
        var scale = 1.0
        // "ms" comes before "m" and "s" in `units`, so it wins.
        for unit in units where trimmed.hasSuffix(unit.suffix) {
            number = trimmed.dropLast(unit.suffix.count)
            scale = unit.seconds
            break
        }
        let allowed = number.allSatisfy { $0 == "." || ($0.isASCII && $0.isNumber) }
        guard allowed, number.first?.isNumber == true, let value = Double(number), value > 0,
            (value * scale).isFinite
        else {
            return nil
        }
        return value * scale
    }

    /// A duration the way users write it: `500ms`, `90s`, `2.5s`; huge
    /// values in scientific notation rather than 300 digits.
    public static func describe(_ seconds: TimeInterval) -> String {
        if seconds < 1, seconds * 1000 == (seconds * 1000).rounded() {
            return "\(Int(seconds * 1000))ms"
        }
        if seconds < 1e9, seconds == seconds.rounded() {
            return "\(Int(seconds))s"
        }
        return String(format: "%gs", seconds)
    }
}
