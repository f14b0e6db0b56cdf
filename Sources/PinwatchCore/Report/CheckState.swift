/// A Nagios/Icinga plugin state, with its exit code.
public enum CheckState: Int32, Sendable, CaseIterable {
    case ok = 0
    case warning = 1
    case critical = 2
    case unknown = 3

    public var label: String {
        switch self {
        case .ok: return "OK"
        case .warning: return "WARNING"
        case .critical: return "CRITICAL"
        case .unknown: return "UNKNOWN"
        }
    }

    /// The state one host contributes: its severity, under the plugin's name.
    public init(_ report: HostReport) {
        self.init(report.severity)
    }

    public init(_ severity: HostSeverity) {
        switch severity {
        case .critical: self = .critical
        case .unknown: self = .unknown
        case .warning: self = .warning
        case .ok: self = .ok
        }
    }
}
