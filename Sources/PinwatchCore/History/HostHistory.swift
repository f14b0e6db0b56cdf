import Foundation

/// What the history store knows of one host, beside its latest report.
public struct HostHistory: Hashable, Sendable {
    /// When the host's current status began (survives restarts).
    public var statusSince: Date?
    /// Status changes in the last 24 hours: a flapping host shows here.
    public var changesLast24Hours: Int
    public var renewal: RenewalEstimate?
    /// The CA-level keys changed within `chainChangeWindow` and the chain
    /// has not changed since: the `chain_changed` warning holds that long,
    /// so a scrape or a glance between two cycles does not miss it.
    public var caKeysChanged: Bool
    /// What changed at the CA levels, for the reason text:
    /// `intermediate CN=R11 → CN=R13`.
    public var caChange: String?
    /// When that change was recorded: `serve` counts each once.
    public var caChangedAt: Date?

    public static let chainChangeWindow: TimeInterval = 86_400
    /// The latest timeline entries, newest last (a handful, for the
    /// detail view).
    public var recent: [TimelineEntry]
    /// The status and severity recorded before this result: after a
    /// restart, read from the file, so a host still in the same trouble is
    /// not news to the hooks.
    public var previousStatus: HostStatus?
    public var previousSeverity: HostSeverity?

    public init(
        statusSince: Date? = nil, changesLast24Hours: Int = 0, renewal: RenewalEstimate? = nil, caKeysChanged: Bool = false,
        caChange: String? = nil, caChangedAt: Date? = nil, recent: [TimelineEntry] = [], previousStatus: HostStatus? = nil,
        previousSeverity: HostSeverity? = nil
    ) {
        self.previousStatus = previousStatus
        self.previousSeverity = previousSeverity
        self.recent = recent
        self.statusSince = statusSince
        self.changesLast24Hours = changesLast24Hours
        self.renewal = renewal
        self.caKeysChanged = caKeysChanged
        self.caChange = caChange
        self.caChangedAt = caChangedAt
    }
}

/// Records each cycle's reports and gives them back with their history.
/// The poller calls it on one serial queue of its own, off the caller's.
public protocol HostHistoryRecorder: AnyObject {
    func record(_ reports: [HostReport], at date: Date) -> [HostReport]
    /// How recording fares; read after a cycle's last batch was recorded.
    var writeHealth: HistoryWriteHealth { get }
}
