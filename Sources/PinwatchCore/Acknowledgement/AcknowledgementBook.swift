import Foundation

/// Decides, report by report, which acknowledgement holds: one holds while
/// `now` is before its `until` and the host is still in the state it
/// acknowledged. A change of state spends it for good, so a host that
/// flaps back into the acknowledged state is news again.
///
/// A `silence:` from the configuration acknowledges the first troubled
/// state it meets (a healthy host has nothing to acknowledge); one given
/// on the dashboard carries its state already, and wins over the
/// configuration's.
public struct AcknowledgementBook: Sendable {
    /// The dashboard's, by host identity, as the history store holds them.
    private var stored: [String: Acknowledgement] = [:]
    /// The state each configuration silence took when it first applied.
    private var boundStates: [Acknowledgement: AcknowledgedState] = [:]
    private var spent: Set<Acknowledgement> = []
    /// Stored acknowledgements spent since `takeNewlySpent`: the writer
    /// removes them from the store.
    private var newlySpent: [Acknowledgement] = []

    public init(stored: [Acknowledgement] = []) {
        replaceStored(stored)
    }

    /// The store's acknowledgements, read again (each cycle, or after `a`).
    public mutating func replaceStored(_ acknowledgements: [Acknowledgement]) {
        stored = Dictionary(acknowledgements.map { ($0.hostIdentity, $0) }, uniquingKeysWith: { _, latest in latest })
    }

    /// The report with the acknowledgement that holds for it now, or none.
    public mutating func apply(_ report: HostReport, now: Date) -> HostReport {
        var report = report
        report.acknowledgement = holding(for: report, now: now)
        return report
    }

    public mutating func apply(_ reports: [HostReport], now: Date) -> [HostReport] {
        reports.map { apply($0, now: now) }
    }

    public mutating func takeNewlySpent() -> [Acknowledgement] {
        defer { newlySpent = [] }
        return newlySpent
    }

    private mutating func holding(for report: HostReport, now: Date) -> Acknowledgement? {
        // Most fleets acknowledge nothing: no identity is built for them.
        guard !stored.isEmpty || report.config.silence != nil else { return nil }
        let identity = report.config.identityKey
        if let acknowledgement = stored[identity], let holding = check(acknowledgement, report, now: now) {
            return holding
        }
        guard let silence = report.config.silence else { return nil }
        let written = Acknowledgement(hostIdentity: identity, until: silence.until, reason: silence.reason, source: .config)
        return check(written, report, now: now)
    }

    private mutating func check(_ acknowledgement: Acknowledgement, _ report: HostReport, now: Date) -> Acknowledgement? {
        guard now < acknowledgement.until, !spent.contains(acknowledgement) else { return nil }
        let current = AcknowledgedState(of: report)
        guard let acknowledged = acknowledgement.state ?? boundStates[acknowledgement] else {
            guard report.severity != .ok else { return nil }
            boundStates[acknowledgement] = current
            var bound = acknowledgement
            bound.state = current
            return bound
        }
        guard acknowledged == current else {
            spent.insert(acknowledgement)
            boundStates[acknowledgement] = nil
            if acknowledgement.source == .dashboard { newlySpent.append(acknowledgement) }
            return nil
        }
        var holding = acknowledgement
        holding.state = acknowledged
        return holding
    }
}
