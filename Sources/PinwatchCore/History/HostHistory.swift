import Foundation

/// What the history store knows of one host, beside its latest report.
public struct HostHistory: Hashable, Sendable {
    /// When the host's current status began (survives restarts).
    public var statusSince: Date?
    /// Status changes in the last 24 hours: a flapping host shows here.
    public var changesLast24Hours: Int
    public var renewal: RenewalEstimate?
    /// The store's facts of the latest chain change; `caKeyChange` and
    /// `caKeysChanged` are what Core decides from them.
    public var latestChainChange: ChainChangeFacts? {
        didSet { caKeyChange = CAKeyChange(latestChainChange) }
    }
    /// The latest chain change when it changed the CA-level keys, however
    /// long ago (`serve` counts each once).
    public private(set) var caKeyChange: CAKeyChange?
    /// `caKeyChange` still holds `chain_changed` at the report's time; set
    /// by `HostReport.with(history:now:)`.
    public internal(set) var caKeysChanged = false
    public var caChange: String? { caKeyChange?.text }
    public var caChangedAt: Date? { caKeyChange?.at }

    public static let chainChangeWindow: TimeInterval = CAKeyChange.hold
    /// The latest timeline entries, newest last (a handful, for the
    /// detail view).
    public var recent: [TimelineEntry]
    /// The status and severity recorded before this result: after a
    /// restart, read from the file, so a host still in the same trouble is
    /// not news to the hooks.
    public var previousStatus: HostStatus?
    public var previousSeverity: HostSeverity?
    /// For a host of several probes: since when each probe (by its label,
    /// `127.0.0.2`, `rsa`) has served the chain it serves now.
    public var probeChainsSince: [String: Date] = [:]
    /// Pin-failure reports clients sent within the last day (`report_uri:`).
    public var clientReports: ClientReportFacts?

    public init(
        statusSince: Date? = nil, changesLast24Hours: Int = 0, renewal: RenewalEstimate? = nil,
        latestChainChange: ChainChangeFacts? = nil, recent: [TimelineEntry] = [], previousStatus: HostStatus? = nil,
        previousSeverity: HostSeverity? = nil
    ) {
        self.previousStatus = previousStatus
        self.previousSeverity = previousSeverity
        self.recent = recent
        self.statusSince = statusSince
        self.changesLast24Hours = changesLast24Hours
        self.renewal = renewal
        self.latestChainChange = latestChainChange
        caKeyChange = CAKeyChange(latestChainChange)
    }
}

/// Records each cycle's reports and gives them back with their history.
/// The poller calls it on one serial queue of its own, off the caller's.
public protocol HostHistoryRecorder: AnyObject {
    func record(_ reports: [HostReport], at date: Date) -> [HostReport]
    /// How recording fares; read after a cycle's last batch was recorded.
    var writeHealth: HistoryWriteHealth { get }
}
