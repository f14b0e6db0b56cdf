import Foundation

/// `preflight`: which pinned clients accept a chain that is not deployed
/// yet. The chain was judged as a probe's would be (`report`, with each
/// client release's view in `clients`); this decides, per pinned client,
/// whether it accepts, only survives with a warning, or refuses.
public struct PreflightReport: Sendable {
    public enum Outcome: String, Sendable, Comparable {
        case accepts
        case warns
        case refuses

        public static func < (left: Outcome, right: Outcome) -> Bool { left.rank < right.rank }

        private var rank: Int {
            switch self {
            case .accepts: return 0
            case .warns: return 1
            case .refuses: return 2
            }
        }

        /// 0 every pinned client accepts, 1 some survive with warnings, 2 one refuses.
        public var exitCode: Int32 { Int32(rank) }

        var mark: String {
            switch self {
            case .accepts: return "✓"
            case .warns: return "!"
            case .refuses: return "✗"
            }
        }
    }

    /// One pinned client's view: the configured pins or an imported release.
    public struct Judgement: Sendable {
        /// `configured pins`, or the release's name under `clients:`.
        public var name: String
        public var isClientRelease: Bool
        public var report: HostReport
        public var outcome: Outcome
    }

    /// The host's verdict on the candidate chain, client views folded in.
    public let report: HostReport
    /// Whether the host was found in the configuration (else: no pins of its own).
    public let configured: Bool
    /// Where the chain came from (a path, or `standard input`).
    public let source: String
    public let judgements: [Judgement]

    /// `report`: the verdict with every client release's view; `own`: the
    /// same chain judged with the configured pins alone (no `clients:`),
    /// since a worse client's view replaces the host's in `report`.
    public init(report: HostReport, own: HostReport, configured: Bool, source: String) {
        self.report = report
        self.configured = configured
        self.source = source
        var judgements: [Judgement] = []
        if !own.config.pins.isEmpty {
            judgements.append(Judgement(name: "configured pins", isClientRelease: false, report: own, outcome: Self.outcome(of: own)))
        }
        for client in report.clients {
            var outcome = Self.outcome(of: client.report)
            // A report-only rule (TrustKit without enforcement, HPKP
            // Report-Only) lets the connection through.
            if outcome == .refuses && !client.enforced { outcome = .warns }
            judgements.append(Judgement(name: client.client, isClientRelease: true, report: client.report, outcome: outcome))
        }
        self.judgements = judgements
    }

    /// A refusal is what a pinned client does on this chain the day it is
    /// deployed; anything else the severity flags is a warning.
    static func outcome(of report: HostReport) -> Outcome {
        let refusing: Set<HostAlert> = [.untrusted, .noMatch, .expired, .intercepted, .probeError]
        if report.status == .blocked || report.status == .error || report.alerts.contains(where: refusing.contains) {
            return .refuses
        }
        return report.severity == .ok ? .accepts : .warns
    }

    /// With no pinned client, the chain is still judged on trust: every
    /// TLS client refuses an untrusted chain.
    public var outcome: Outcome {
        guard !judgements.isEmpty else { return Self.outcome(of: report) == .refuses ? .refuses : .accepts }
        return judgements.map(\.outcome).max() ?? .accepts
    }

    public var exitCode: Int32 { outcome.exitCode }

    /// The releases (or the configured pins) that refuse the chain.
    public var breaking: [String] { judgements.filter { $0.outcome == .refuses }.map(\.name) }
    public var warning: [String] { judgements.filter { $0.outcome == .warns }.map(\.name) }

    // MARK: Text

    public var text: String {
        let config = report.config
        let clean = TerminalText.sanitize
        var out = "preflight \(clean(config.displayName)): candidate chain from \(clean(source)), nothing dialled\n"
        out += "chain: \(report.result.sentCount) sent, \(clean(TrustText.describe(report.result)))"
        out += config.trust == .system ? " (system store)\n" : " (the host's trust bundle)\n"
        for level in report.levels {
            let origin = level.certificate.fromServer ? "" : " (from the trust store)"
            out += "  level \(level.level) · \(level.role.rawValue) · \(clean(level.certificate.facts.subject))"
            out += " · \(PinText.sha256(level.certificate.facts.spkiSHA256))\(origin)\n"
        }
        out += "\n"
        if !configured {
            out += "\(clean(config.displayName)) is not in the configuration: judged with no pins of its own\n"
        }
        if judgements.isEmpty {
            out += "no pinned client (no configured pins, no client release pins this host): judged on trust only\n"
        }
        for judgement in judgements {
            let label = judgement.isClientRelease ? "client \(clean(judgement.name))" : judgement.name
            out += "\(judgement.outcome.mark) \(label): \(judgement.report.status.rawValue) — \(clean(judgement.report.reason))\n"
        }
        // Each pinned client's own next chains, labelled: one section for
        // the folded report would show the worst release's pins under
        // every name, and contradict a release that survives.
        if judgements.isEmpty {
            out += NextChainText.section(of: report)
        }
        for judgement in judgements {
            out += NextChainText.section(of: judgement.report, judging: label(judgement))
        }
        out += "\n" + conclusion + "\n"
        return out
    }

    /// Whose pins a judgement holds: a release, the host's pin set, or its own pins.
    func label(_ judgement: Judgement) -> String {
        if judgement.isClientRelease { return "client \(judgement.name)" }
        return judgement.report.config.pinsetName.map { "pin set \($0)" } ?? "the host's configured pins"
    }

    /// The last line: what deploying the chain does, naming who breaks.
    public var conclusion: String {
        let names = { (list: [String]) in list.map(TerminalText.sanitize).joined(separator: ", ") }
        switch outcome {
        case .refuses where breaking.isEmpty:
            return "REFUSED: every TLS client refuses this chain (\(TerminalText.sanitize(TrustText.describe(report.result))))"
        case .refuses:
            return "BREAKS \(names(breaking)): deploying this chain breaks \(breaking.count == 1 ? "it" : "them")"
        case .warns:
            return "SURVIVES WITH WARNINGS for \(names(warning)): every pinned client accepts it today"
        case .accepts:
            return judgements.isEmpty ? "ACCEPTED: trusted, and no client pins this host" : "ACCEPTED by every pinned client"
        }
    }

    // MARK: JSON and stanza

    /// The host object of `snapshot --format json` with a `preflight` object.
    public func json(generatedAt: Date) -> String {
        let out = JSONBytes()
        JSONObjectWriter.write(to: out, depth: 0) { fields in
            fields.field("version", JSONReport.version)
            fields.field("generated_at", DateText.iso8601(generatedAt))
            fields.object("preflight") { preflight in
                preflight.field("source", source)
                preflight.field("configured", configured)
                preflight.field("outcome", outcome.rawValue)
                preflight.field("exit_code", Int(exitCode))
                preflight.field("breaks", strings: breaking)
                preflight.field("warns", strings: warning)
                preflight.objects("judgements", judgements) { judgement, object in
                    object.field("name", judgement.name)
                    object.field("client_release", judgement.isClientRelease)
                    object.field("outcome", judgement.outcome.rawValue)
                    object.field("status", judgement.report.status.rawValue)
                    object.field("severity", judgement.report.severity.rawValue)
                    object.field("reason", judgement.report.reason)
                }
            }
            fields.object("host") { JSONReport.writeHost(report, to: &$0) }
        }
        return out.text + "\n"
    }

    /// The `hosts:` entry pinning the candidate chain, ready to paste.
    public var stanza: String {
        PinStanza.document(for: report) ?? "hosts:\n" + PinStanza.yaml(for: report.config, chain: [])
    }
}
