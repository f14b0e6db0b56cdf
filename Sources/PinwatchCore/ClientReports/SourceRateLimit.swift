import Foundation

/// A token bucket per source address: `burst` posts at once, then one
/// every `refill` seconds. Time comes from the caller, so tests move it.
/// The table is bounded: past `maximumSources` addresses, the one idle
/// longest is forgotten (a full bucket is what it would have anyway
/// after `burst × refill` seconds).
public struct SourceRateLimit: Sendable {
    public let burst: Double
    public let refill: TimeInterval
    public let maximumSources: Int
    private var buckets: [String: (tokens: Double, at: Date)] = [:]

    /// 20 at once, then one every 3 s: a client reports once per failed
    /// connection, and a device's failures come in bursts when it joins a
    /// network that serves it another chain.
    public init(burst: Int = 20, refill: TimeInterval = 3, maximumSources: Int = 4_096) {
        self.burst = Double(burst)
        self.refill = refill
        self.maximumSources = maximumSources
    }

    /// Takes one token from `source`'s bucket; false when it is empty.
    public mutating func admit(_ source: String, now: Date) -> Bool {
        var bucket = buckets[source] ?? (burst, now)
        let elapsed = max(0, now.timeIntervalSince(bucket.at))
        bucket.tokens = min(burst, bucket.tokens + elapsed / refill)
        bucket.at = now
        let admitted = bucket.tokens >= 1
        if admitted { bucket.tokens -= 1 }
        if buckets[source] == nil, buckets.count >= maximumSources,
            let idlest = buckets.min(by: { $0.value.at < $1.value.at })?.key
        {
            buckets[idlest] = nil
        }
        buckets[source] = bucket
        return admitted
    }
}
