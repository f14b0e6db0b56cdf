import Foundation

/// One thing `pinwatch lint` (and the detail view) says about a client's pins.
public struct LintFinding: Hashable, Sendable {
    public enum Level: String, Sendable, Hashable, CaseIterable {
        /// Broken now: a release refuses a host it pins (`lint`'s exit 4).
        case error
        /// Will break, or may: exit 1.
        case warning
        /// Worth knowing.
        case info
    }

    public var level: Level
    public var client: String
    /// The host or domain pattern it is about.
    public var subject: String
    public var message: String
    /// `file:line` or `file: entry`; empty when the subject is already that.
    public var origin: String

    public init(level: Level, client: String, subject: String, message: String, origin: String) {
        self.level = level
        self.client = client
        self.subject = subject
        self.message = message
        self.origin = origin
    }

    public var text: String {
        TerminalText.sanitize("\(level.rawValue): \(client): \(subject): \(message)" + (origin.isEmpty ? "" : " (\(origin))"))
    }
}

/// Checks a client's pins against what is live: backups, leaf-only
/// sets, pins that match nothing, expirations, patterns wider than the
/// monitored hosts.
public enum ClientLint {
    /// Everything about every client: the sources' own notes, each rule,
    /// and each monitored host each client pins.
    /// Errors first, then warnings, then notes, each in the order found:
    /// what breaks now must not scroll past among the advice.
    public static func findings(config: Config, reports: [HostReport], now: Date) -> [LintFinding] {
        let found = config.clients.flatMap { client in
            client.pins.notes.map {
                LintFinding(level: .warning, client: client.name, subject: $0.origin, message: $0.message, origin: "")
            }
                + ruleFindings(client, hosts: config.hosts, now: now, warnDays: config.warnDays)
                + reports.flatMap { report in unprobedFindings(report, client: client.name) + hostFindings(report, client: client.name) }
        }
        return LintFinding.Level.allCases.flatMap { level in found.filter { $0.level == level } }
    }

    /// How many hosts some client pins whose live chain was read: with
    /// none, lint has checked nothing, whatever it found in the files.
    public static func checkedHostCount(_ reports: [HostReport]) -> Int {
        reports.filter { report in report.clients.contains { $0.report.status != .error } }.count
    }

    /// A pinned host whose chain could not be read: its pins went unchecked,
    /// which silence would pass off as fine.
    static func unprobedFindings(_ report: HostReport, client name: String) -> [LintFinding] {
        report.clients.filter { $0.client == name && $0.report.status == .error }.map { verdict in
            LintFinding(
                level: .warning, client: name, subject: "\(report.config.serverName):\(report.config.port)",
                message: "not probed, so its pins were not checked: \(report.reason)",
                origin: verdict.rules.map(\.origin).joined(separator: ", "))
        }
    }

    /// What the live chain says of one client's pins on one host.
    public static func hostFindings(_ report: HostReport, client name: String? = nil) -> [LintFinding] {
        report.clients.filter { name == nil || $0.client == name }.flatMap { verdict -> [LintFinding] in
            let host = report.config.serverName
            guard verdict.report.status != .error, !verdict.report.levels.isEmpty else { return [] }
            let origin = verdict.rules.map(\.origin).joined(separator: ", ")
            func finding(_ level: LintFinding.Level, _ message: String) -> LintFinding {
                LintFinding(level: level, client: verdict.client, subject: host, message: message, origin: origin)
            }
            let transparency = transparencyFindings(verdict, finding: finding)
            let pins = Array(Set(verdict.rules.flatMap(\.pins))).sorted { $0.text < $1.text }
            guard !pins.isEmpty else { return transparency }
            let levels = verdict.report.levels
            let matchedLevels = pins.map { pin in levels.filter { $0.certificate.facts.digest(for: pin.kind) == pin.digest }.map(\.level) }
            var findings: [LintFinding] = []
            if matchedLevels.allSatisfy(\.isEmpty) {
                // Pins past their expiration (or not enforced) refuse
                // nothing: the rules' own findings say so.
                if verdict.report.status == .blocked {
                    findings.append(
                        verdict.enforced
                            ? finding(.error, "no pin matches the live chain: this release refuses the host now")
                            : finding(.warning, "no pin matches the live chain: this release reports every connection as failing"))
                }
                return transparency + findings
            }
            let dynamic = verdict.format == .dynamicList
            let chain = verdict.report.result.chain
            let misplaced = verdict.rules.contains { rule in
                !rule.matchesAtItsDepth(chain)
                    && rule.pins.contains { pin in chain.contains { $0.facts.digest(for: pin.kind) == pin.digest } }
            }
            if dynamic, verdict.report.status == .blocked, misplaced {
                findings.append(
                    finding(
                        .warning,
                        "a list entry's certificate is in the chain at another depth than the entry gives: this release refuses the host"))
                return transparency + findings
            }
            if let tierNote = verdict.tierNote, verdict.report.status != .ok {
                // ATS's lists are checks of their own: a pin that matches
                // somewhere does not make the chain pass.
                findings.append(
                    finding(
                        .warning,
                        verdict.report.status == .leafOnly
                            ? "NSPinnedLeafIdentities pins the leaf: this release breaks at the next leaf key (\(tierNote))"
                            : "this release refuses the host (\(tierNote))"))
            } else if !dynamic, matchedLevels.allSatisfy({ $0.allSatisfy { $0 == 0 } }) {
                findings.append(finding(.warning, "only the leaf matches: this release breaks at the next leaf renewal"))
            }
            // A single pin is already flagged from the file (ruleFindings).
            if !dynamic, pins.count > 1, matchedLevels.allSatisfy({ !$0.isEmpty }) {
                findings.append(finding(.warning, "no backup pin: every pin is in the live chain, so a key change leaves no fallback"))
            }
            for (pin, matched) in zip(pins, matchedLevels) where matched.isEmpty && !dynamic {
                findings.append(finding(.info, "\(pin.text) matches no certificate of the live chain (a backup, or stale)"))
            }
            if let nextChains = verdict.report.nextChains, NextChainText.breaksBeyondRenewal(nextChains) {
                let add = nextChains.recommended.map { "\($0.pin) (\($0.subject))" }.joined(separator: ", ")
                findings.append(
                    finding(
                        .warning,
                        "a next chain breaks this release (\(NextChainText.survival(nextChains)))" + (add.isEmpty ? "" : "; add \(add)")))
            }
            if !verdict.enforced {
                findings.append(finding(.info, "not enforced: failures are reported, connections go on"))
            }
            return transparency + findings
        }
    }
    /// A release that requires Certificate Transparency and refuses the
    /// leaf, or whose SCTs could not be checked for want of a log list.
    private static func transparencyFindings(
        _ verdict: ClientHostVerdict, finding: (LintFinding.Level, String) -> LintFinding
    ) -> [LintFinding] {
        guard let note = verdict.transparencyNote else { return [] }
        if verdict.report.alerts.contains(.ctNoncompliant) {
            return [finding(.error, "this release requires Certificate Transparency and refuses the host now: \(note)")]
        }
        return verdict.report.result.scts == nil ? [finding(.warning, note)] : []
    }

    /// Expirations and subdomain coverage, from the files alone.
    static func ruleFindings(_ client: ClientPolicy, hosts: [HostConfig], now: Date, warnDays: Int) -> [LintFinding] {
        let monitored = hosts.map { $0.serverName.lowercased() }
        var findings: [LintFinding] = []
        // A dynamic list's expired entries are already in the notes.
        let expiring = client.leafPinsExpected ? [] : client.pins.rules
        for rule in expiring {
            guard let expiration = rule.expiration else { continue }
            let days = Int((expiration.timeIntervalSince(now) / 86_400).rounded(.down))
            if expiration <= now {
                findings.append(
                    LintFinding(
                        level: .warning, client: client.name, subject: rule.domain,
                        message: "pins expired \(DateText.day(expiration)): this release no longer checks them", origin: rule.origin))
            } else if days <= warnDays {
                findings.append(
                    LintFinding(
                        level: .warning, client: client.name, subject: rule.domain,
                        message: "pins expire \(DateText.day(expiration)) (in \(days) days): then this release stops checking them",
                        origin: rule.origin))
            }
        }
        if client.leafPinsExpected, let latest = client.pins.rules.compactMap(\.expiration).max(), latest > now,
            latest.timeIntervalSince(now) <= Double(warnDays) * 86_400
        {
            findings.append(
                LintFinding(
                    level: .warning, client: client.name, subject: client.pins.file,
                    message: "the signed list expires \(DateText.day(latest)): publish a new one", origin: client.pins.file))
        }
        // TrustKit's importer notes its own one-hash domains; a signed list
        // carries one fingerprint per entry by design.
        let backupsChecked = ![.trustkit, .dynamicList].contains(client.pins.format)
        for rule in client.pins.rules where backupsChecked && Set(rule.pins).count == 1 {
            findings.append(
                LintFinding(
                    level: .warning, client: client.name, subject: rule.domain,
                    message: "one pin and no backup: a key change breaks this release (Android and TrustKit require a backup pin)",
                    origin: rule.origin))
        }
        for name in client.skip.sorted() where client.pins.rules.contains(where: { $0.domain == name }) && !monitored.contains(name) {
            findings.append(
                LintFinding(
                    level: .info, client: client.name, subject: name, message: "not probed (skip:): its pins are not checked", origin: ""))
        }
        for rule in client.pins.rules where rule.includeSubdomains || rule.domain.hasPrefix("*") {
            let parent = rule.domain.hasPrefix("*") ? String(rule.domain.drop { $0 == "*" || $0 == "." }) : rule.domain
            let covered = monitored.filter { $0 != parent && rule.specificity(for: $0) != nil }
            if covered.isEmpty {
                findings.append(
                    LintFinding(
                        level: .info, client: client.name, subject: rule.domain,
                        message: "pins cover subdomains of \(parent), but none is monitored: add the hosts the app calls",
                        origin: rule.origin))
            }
        }
        return findings
    }
}
