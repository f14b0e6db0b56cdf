import Foundation

/// The sane range of every number a configuration or command line sets.
///
/// Past these a value is a typo or an attack, never an intent: a 400-nines
/// interval overflowed Dispatch's timer set-up and crashed the dashboard.
public enum ConfigLimits {
    /// One second to one week: faster would hammer the hosts, slower is
    /// not monitoring.
    public static let interval: ClosedRange<TimeInterval> = 1...604_800
    /// At least 10 ms; the upper bound is the interval, checked with it.
    public static let minimumTimeout: TimeInterval = 0.01
    public static let concurrency: ClosedRange<Int> = 1...10_000
    public static let days: ClosedRange<Int> = 0...3650
    public static let historyDays: ClosedRange<Int> = 1...3650
    /// Hosts one configuration watches (`hosts:`, `include:` and `file_sd:`
    /// together): twice the largest fleet the benchmarks run. A longer list
    /// is refused before its entries are read, so a generated file_sd of
    /// 100,000 targets costs no more than its parse.
    public static let hosts = 20_000

    /// Why `count` more hosts (a file_sd's `targets`) cannot join
    /// `existing` ones, or nil.
    static func hostsProblem(_ count: Int, existing: Int, counted noun: String = "hosts") -> String? {
        guard existing + count > hosts else { return nil }
        let before = existing > 0 ? " (with \(existing) from the files before)" : ""
        return "\(count) \(noun)\(before): one configuration watches at most \(hosts) hosts (hosts:, include: and file_sd: together)"
    }

    /// Why `seconds` cannot be an interval, or nil when it can.
    public static func intervalProblem(_ seconds: TimeInterval) -> String? {
        guard interval.contains(seconds) else {
            return "\(ConfigDuration.describe(seconds)) is out of range 1s…1 week (604800s)"
        }
        return nil
    }

    /// Why `timeout` cannot go with `interval`, or nil when it can: a probe
    /// that outlives its cycle would overlap the next one.
    public static func timeoutProblem(_ timeout: TimeInterval, interval: TimeInterval) -> String? {
        if timeout < minimumTimeout {
            return "\(ConfigDuration.describe(timeout)) is below the minimum of 10ms"
        }
        if timeout > interval {
            return "timeout \(ConfigDuration.describe(timeout)) is longer than interval \(ConfigDuration.describe(interval)): "
                + "a probe must end before the next cycle starts"
        }
        return nil
    }
}
