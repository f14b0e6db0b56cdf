import Foundation

/// A known problem acknowledged until a date (DESIGN §14): from `silence:`
/// in the configuration or the dashboard's `a`. It holds only while the
/// host is still in the state it acknowledged (`AcknowledgementBook`).
public struct Acknowledgement: Hashable, Sendable {
    public enum Source: String, Hashable, Sendable {
        case config
        case dashboard
        /// Another instance's (`pinwatch_host_acknowledged`): its until,
        /// author and reason are not exported.
        case instance
    }

    /// `HostConfig.identityKey` of the host it covers.
    public var hostIdentity: String
    /// The moment it stops holding (exclusive).
    public var until: Date
    public var reason: String
    /// Who acknowledged it (the dashboard's user); nil for the configuration.
    public var by: String?
    /// When it was given; nil for the configuration.
    public var at: Date?
    public var source: Source
    /// The state it acknowledged; nil for a `silence:` not yet applied,
    /// which takes the first troubled state it meets.
    public var state: AcknowledgedState?

    public init(
        hostIdentity: String, until: Date, reason: String, by: String? = nil, at: Date? = nil, source: Source,
        state: AcknowledgedState? = nil
    ) {
        self.hostIdentity = hostIdentity
        self.until = until
        self.reason = reason
        self.by = by
        self.at = at
        self.source = source
        self.state = state
    }
}

/// What a host looked like when acknowledged: a change of either brings
/// the host back.
public struct AcknowledgedState: Hashable, Sendable {
    public var severity: HostSeverity
    public var headline: HostHeadline

    public init(severity: HostSeverity, headline: HostHeadline) {
        self.severity = severity
        self.headline = headline
    }

    public init(of report: HostReport) {
        self.init(severity: report.severity, headline: report.headline)
    }
}

/// `silence:` of one host as written: the host's identity is added when
/// the book meets its report.
public struct HostSilence: Hashable, Sendable {
    public var until: Date
    public var reason: String

    public init(until: Date, reason: String) {
        self.until = until
        self.reason = reason
    }
}
