import Foundation

/// Whole numbers from seconds and days that may come from elsewhere (a
/// Prometheus sample, a far-off date): `Int(Double)` traps on NaN, an
/// infinity or anything past ±2^63, and one such value must not end a
/// dashboard.
package enum WholeNumber {
    /// Far past any count of seconds, days or milliseconds pinwatch shows,
    /// and exact in a Double.
    package static let bound = Double(1 << 53)

    /// `value` rounded by `rule`, held within ±2^53; NaN is 0.
    package static func clamped(_ value: Double, _ rule: FloatingPointRoundingRule = .down) -> Int {
        guard !value.isNaN else { return 0 }
        return Int(min(bound, max(-bound, value.rounded(rule))))
    }
}
