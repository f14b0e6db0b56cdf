/// How many hosts have each status: the summary line and `summary` object.
public struct StatusSummary: Hashable, Sendable {
    public var ok = 0
    public var leafOnly = 0
    public var blocked = 0
    public var error = 0
    public var unpinned = 0

    public init(_ reports: [HostReport]) {
        for report in reports { count(report) }
    }

    /// Another count's hosts added: counts made in parts.
    package mutating func add(_ other: StatusSummary) {
        ok += other.ok
        leafOnly += other.leafOnly
        blocked += other.blocked
        error += other.error
        unpinned += other.unpinned
    }

    /// One more report counted: for reports made one at a time.
    package mutating func count(_ report: HostReport) {
        count(report.status)
    }

    /// One more host of `status`: for rows whose verdict was decided elsewhere.
    package mutating func count(_ status: HostStatus) {
        switch status {
        case .ok: ok += 1
        case .leafOnly: leafOnly += 1
        case .blocked: blocked += 1
        case .error: error += 1
        case .unpinned: unpinned += 1
        }
    }

    public func count(of status: HostStatus) -> Int {
        switch status {
        case .ok: return ok
        case .leafOnly: return leafOnly
        case .blocked: return blocked
        case .error: return error
        case .unpinned: return unpinned
        }
    }

    /// The order of DESIGN §8's `summary` object and of the check perfdata.
    public static let reportingOrder: [HostStatus] = [.ok, .leafOnly, .blocked, .error, .unpinned]
}
