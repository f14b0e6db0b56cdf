import Foundation

/// `snapshot --format json`, version 1 (DESIGN §8).
///
/// Every host carries every field, `null` or `[]` where it does not apply,
/// so scripts never need to test for a key.
public enum JSONReport {
    public static let version = 1

    public static func render(_ reports: [HostReport], generatedAt: Date) -> String {
        var out = ""
        write(reports, generatedAt: generatedAt) { out += $0 }
        return out
    }

    /// The same document, handed to `emit` in pieces of about 64 KiB, so
    /// that a 10,000-host snapshot never holds the whole text (or a tree of
    /// it) in memory at once.
    public static func write(_ reports: [HostReport], generatedAt: Date, to emit: (String) -> Void) {
        let summary = StatusSummary(reports)
        let head = JSONValue.object([
            ("version", .int(version)),
            ("generated_at", .string(DateText.iso8601(generatedAt))),
            (
                "summary",
                .object(
                    StatusSummary.reportingOrder.map { ($0.rawValue, .int(summary.count(of: $0))) }
                        + [
                            (
                                "severity",
                                .object(
                                    HostSeverity.worstFirst.map { severity in
                                        (severity.rawValue, .int(reports.filter { $0.severity == severity }.count))
                                    })
                            )
                        ])
            ),
        ]).render()
        // The head without its closing brace; "hosts" is the last field.
        emit(String(head.dropLast(2)) + ",\n  \"hosts\": ")
        guard !reports.isEmpty else {
            emit("[]\n}\n")
            return
        }
        let out = JSONBytes()
        out.append("[\n")
        for index in reports.indices {
            out.indent(2)
            host(reports[index]).write(to: out, indent: 2)
            out.append(index == reports.count - 1 ? "\n" : ",\n")
            if out.count >= 65_536 {
                emit(out.text)
                out.removeAll()
            }
        }
        out.append("  ]\n}\n")
        emit(out.text)
    }

    /// One host object, for `inspect --format json`.
    public static func renderHost(_ report: HostReport) -> String {
        host(report).render() + "\n"
    }

    /// `inspect --format json`: the host object with the ready-to-paste
    /// `hosts:` stanza (null when no chain was obtained).
    public static func renderInspectedHost(_ report: HostReport) -> String {
        guard case .object(var fields) = host(report) else { return renderHost(report) }
        let chain = report.levels.map(\.certificate)
        fields.append(("stanza", chain.isEmpty ? .null : .string("hosts:\n" + PinStanza.yaml(for: report.config, chain: chain))))
        return JSONValue.object(fields).render() + "\n"
    }

    static func host(_ report: HostReport) -> JSONValue {
        let result = report.result
        let chainObtained = report.status != .error
        let error: JSONValue =
            result.failure.map {
                .object([("kind", .string($0.kind.rawValue)), ("message", .string($0.message))])
            } ?? .null
        return .object([
            ("host", .string(report.config.host)),
            ("port", .int(report.config.port)),
            ("sni", .string(report.config.serverName)),
            ("address", .optional(result.address)),
            ("status", .string(report.status.rawValue)),
            ("matched_tiers", .array(report.matchedTiers.map { .string($0.rawValue) })),
            ("alerts", .array(report.alerts.map { .string($0.rawValue) })),
            ("severity", .string(report.severity.rawValue)),
            ("reason", .string(report.reason)),
            ("trusted", .bool(chainObtained && result.trusted)),
            ("trust_error", chainObtained ? .optional(result.trustError) : .null),
            ("leaf_days_left", .optional(report.leafDaysLeft)),
            ("leaf_not_after", .optional(report.levels.first.map { DateText.iso8601($0.certificate.facts.notAfter) })),
            ("proxy", proxy(report.proxy)),
            ("error", error),
            ("elapsed_ms", .int(Int((max(0, result.elapsed) * 1000).rounded()))),
            ("status_since", .optional(report.history?.statusSince.map(DateText.iso8601))),
            ("changes_24h", .optional(report.history?.changesLast24Hours)),
            ("renewal_estimate", report.history?.renewal.map(renewal) ?? .null),
            ("clients", .array(report.clients.map(client))),
            ("chain", .array(report.levels.map(level))),
        ])
    }

    static func client(_ verdict: ClientHostVerdict) -> JSONValue {
        .object([
            ("client", .string(verdict.client)),
            ("format", .string(verdict.format.rawValue)),
            ("status", .string(verdict.report.status.rawValue)),
            ("severity", .string(verdict.report.severity.rawValue)),
            ("reason", .string(verdict.report.reason)),
            ("alerts", .array(verdict.report.alerts.map { .string($0.rawValue) })),
            ("matched_tiers", .array(verdict.report.matchedTiers.map { .string($0.rawValue) })),
            ("enforced", .bool(verdict.enforced)),
            ("pins_expire", .optional(verdict.pinsExpire.map(DateText.iso8601))),
            (
                "rules",
                .array(
                    verdict.rules.map { rule in
                        .object([
                            ("domain", .string(rule.domain)),
                            ("include_subdomains", .bool(rule.includeSubdomains)),
                            ("pins", .array(rule.pins.map { .string($0.text) })),
                            ("origin", .string(rule.origin)),
                        ])
                    })
            ),
        ])
    }

    static func renewal(_ estimate: RenewalEstimate) -> JSONValue {
        .object([
            ("date", .string(DateText.iso8601(estimate.date))),
            ("basis", .string(estimate.basis.rawValue)),
            ("cadence_days", .optional(estimate.cadence.map { Int(($0 / 86_400).rounded()) })),
        ])
    }

    private static func proxy(_ proxy: ProxyReport) -> JSONValue {
        .object([
            ("detected", .bool(proxy.detected)),
            ("source", .optional(proxy.source)),
            ("url", .optional(proxy.url)),
            ("intercepted", .bool(proxy.intercepted)),
        ])
    }

    private static func level(_ level: LevelReport) -> JSONValue {
        let description = CertificateDescription(level.certificate.facts, daysLeft: level.daysLeft)
        return .object(
            [
                ("level", .int(level.level)),
                ("role", .string(level.role.rawValue)),
                ("from_server", .bool(level.certificate.fromServer)),
            ] + description.jsonFields + [
                ("matched", .array(level.matches.map { .object([("tier", .string($0.tier.rawValue)), ("pin", .string($0.pin.text))]) }))
            ])
    }
}
