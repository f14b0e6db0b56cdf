import Foundation

/// What one client release sees on one host: its own pins against the
/// chain the host presents now.
public struct ClientHostVerdict: Hashable, Sendable {
    public var client: String
    public var format: ClientFormat
    /// The verdict with this client's pins (tiers inferred from the levels
    /// they match): status, alerts, severity, reason, matches per level.
    public var report: HostReport
    /// The rules that decided, as the client chose them for this host.
    public var rules: [ClientPinRule]
    /// False when every deciding rule only reports (TrustKit
    /// `TSKEnforcePinning: false`, HPKP Report-Only).
    public var enforced: Bool
    /// The earliest expiration among the deciding rules still in force.
    public var pinsExpire: Date?
    /// How the format's own checks map onto pinwatch's tiers and what each
    /// said (ATS's two lists); nil where one list decides.
    public var tierNote: String?
    /// What the release's Certificate Transparency requirement found (the
    /// leaf's SCTs counted, or why they could not be); nil when the
    /// release does not require CT for this host.
    package var transparencyNote: String?

    public init(
        client: String, format: ClientFormat, report: HostReport, rules: [ClientPinRule], enforced: Bool, pinsExpire: Date?,
        tierNote: String? = nil
    ) {
        self.client = client
        self.format = format
        self.report = report
        self.rules = rules
        self.enforced = enforced
        self.pinsExpire = pinsExpire
        self.tierNote = tierNote
    }

    /// What leads the host's reason when this release decides it.
    public var decidedBy: String { tierNote.map { "\(client) (\($0))" } ?? client }

    /// One line for the client view and `check --client`: what breaks and when.
    public var summary: String {
        "\(client): \(report.status.rawValue) on \(report.config.serverName)"
            + (report.status == .leafOnly ? " — breaks at next renewal" : "") + (tierNote.map { " (\($0))" } ?? "")
            + (transparencyNote.map { " [\($0)]" } ?? "")
    }
}

/// Turns a host's report into each client's view of it and folds the
/// worst of them into the host's own verdict.
public enum ClientVerdicts {
    /// The report with `clients` filled in. When a client sees worse than
    /// the configured pins (or the host has no pins of its own), that
    /// client's verdict becomes the host's, named in the reason: the
    /// table must not say ok while a shipped release breaks.
    public static func apply(
        to report: HostReport, clients: [ClientPolicy], now: Date, warnDays: Int, criticalDays: Int,
        catalogue: Catalogue = .empty, renewShare: Double? = Config.defaultRenewShare
    ) -> HostReport {
        guard !clients.isEmpty else { return report }
        let verdicts = clients.compactMap {
            verdict(
                of: $0, on: report, now: now, warnDays: warnDays, criticalDays: criticalDays, catalogue: catalogue,
                renewShare: renewShare)
        }
        guard !verdicts.isEmpty else { return report }
        var combined = report
        let worst = verdicts.max { $0.report.severity.rank < $1.report.severity.rank } ?? verdicts[0]
        let hostHasOwnPins = !report.config.pins.isEmpty
        if report.status != .error && (!hostHasOwnPins || worst.report.severity.rank > report.severity.rank) {
            var decided = worst.report.replacing(decidedBy: .some(worst.decidedBy), now: now)
            decided.config = report.config
            combined = decided
        }
        combined.clients = verdicts
        return combined
    }

    /// `client`'s view of `report`'s host, nil when it does not pin it.
    public static func verdict(
        of client: ClientPolicy, on report: HostReport, now: Date, warnDays: Int, criticalDays: Int,
        catalogue: Catalogue = .empty, renewShare: Double? = Config.defaultRenewShare
    ) -> ClientHostVerdict? {
        let rules = client.rules(for: report.config.serverName)
        guard !rules.isEmpty else { return nil }
        let inForce = rules.filter { rule in rule.expiration.map { $0 > now } ?? true }
        var host = report.config
        let identities = client.pins.format == .ats ? PinnedIdentities.united(rules.compactMap(\.identities)) : nil
        // A signed list's fingerprint counts at its own depth and nowhere else.
        let counted = client.leafPinsExpected ? inForce.filter { !$0.pins.isEmpty && $0.matchesAtItsDepth(report.result.chain) } : inForce
        // ATS names each list's tier; the others leave it to the chain.
        host.pins = identities.map { PinSet(ca: $0.ca ?? [], leaf: $0.leaf ?? []) } ?? PinSet(auto: counted.flatMap(\.pins))
        host.pinsetName = nil
        let plain = Verdict.report(
            for: host, result: report.result, now: now, warnDays: warnDays, criticalDays: criticalDays, catalogue: catalogue,
            renewShare: renewShare, clientStore: client.trustStore)
        var status = plain.status
        var alerts = plain.alerts
        let expires = inForce.compactMap(\.expiration).min()
        if let identities {
            (status, alerts) = atsStatus(identities, plain: plain)
        } else if client.leafPinsExpected {
            // A signed list pins leaves by design and is republished before
            // each renewal; expired entries simply stop counting.
            if status == .leafOnly {
                status = .ok
                alerts.removeAll { $0 == .leafOnly }
            } else if counted.isEmpty, status != .error {
                // No entry in force has the certificate at its depth (or
                // every one expired or failed its signature): the app
                // accepts nothing.
                status = .blocked
                alerts.append(.noMatch)
            }
        } else if inForce.isEmpty, status != .error {
            // Android and TrustKit stop pinning after the expiration.
            status = .unpinned
            alerts = alerts.filter { ![.leafOnly, .noMatch, .intercepted].contains($0) } + [.pinsExpired]
        }
        if let expires, status != .error, expires.timeIntervalSince(now) <= Double(warnDays) * 86_400 {
            alerts.append(.pinsExpiring)
        }
        var transparencyNote: String?
        if client.requiresCT(under: rules), status != .error, !plain.proxy.intercepted, let leaf = plain.levels.first {
            (status, alerts, transparencyNote) = transparency(plain.result, leaf: leaf.certificate.facts, status: status, alerts: alerts)
        }
        let tierNote = plain.status == .error ? nil : identities?.explanation(of: plain.result.chain)
        let viewed = plain.replacing(status: status, alerts: alerts, decidedBy: .some(tierNote), now: now)
        var verdict = ClientHostVerdict(
            client: client.name, format: client.pins.format, report: viewed, rules: rules,
            enforced: rules.contains(where: \.enforced), pinsExpire: expires, tierNote: tierNote)
        verdict.transparencyNote = transparencyNote
        return verdict
    }

    /// A release that requires Certificate Transparency refuses a leaf
    /// whose SCTs fall short of the policy, whatever its pins say. Without
    /// a log list nothing can be counted: said, never taken for compliant.
    private static func transparency(
        _ result: ProbeResult, leaf: CertificateFacts, status: HostStatus, alerts: [HostAlert]
    ) -> (HostStatus, [HostAlert], String) {
        guard let scts = result.scts else {
            return (status, alerts, "requires Certificate Transparency; SCTs not checked (a probe checks them with the keys of ct: logs:)")
        }
        let compliance = CTCompliance.judge(scts, leaf: leaf)
        guard !compliance.compliant else { return (status, alerts, "Certificate Transparency: " + compliance.sentence) }
        return (.blocked, alerts + [.ctNoncompliant], "Certificate Transparency: " + compliance.sentence)
    }
}
