import Foundation

/// `snapshot --format json`, version 1 (DESIGN §8).
///
/// Every host carries every field, `null` or `[]` where it does not apply,
/// so scripts never need to test for a key.
public enum JSONReport {
    public static let version = 1

    public static func render(_ reports: [HostReport], generatedAt: Date, vantage: String? = nil) -> String {
        var out = ""
        write(reports, generatedAt: generatedAt, vantage: vantage) { out += $0 }
        return out
    }

    /// The same document, handed to `emit` in pieces of about 64 KiB, so
    /// that a 10,000-host snapshot never holds the whole text (or a tree of
    /// it) in memory at once.
    /// `vantage` is `vantage:`, null without one.
    public static func write(_ reports: [HostReport], generatedAt: Date, vantage: String? = nil, to emit: (String) -> Void) {
        write(count: reports.count, generatedAt: generatedAt, vantage: vantage, report: { reports[$0] }, to: emit)
    }

    /// The same document for `count` reports made one at a time
    /// (`snapshot --prometheus`: a fleet's rows), once to be counted and
    /// once to be written, so that they are never all held.
    package static func write(
        count: Int, generatedAt: Date, vantage: String?, report: @Sendable (Int) -> HostReport, to emit: (String) -> Void
    ) {
        write(
            count: count, summary: summaries(count: count, report: report), generatedAt: generatedAt, vantage: vantage, report: report,
            to: emit)
    }

    /// The same, with the `summary` object's counts already made: rows
    /// whose status and severity are known without their reports (a
    /// fleet's, decided by their `serve`) are made into reports once.
    package static func write(
        count: Int, summary counts: (StatusSummary, SeveritySummary), generatedAt: Date, vantage: String?,
        report: @Sendable (Int) -> HostReport, to emit: (String) -> Void
    ) {
        let (summary, severities) = counts
        let head = JSONValue.object([
            ("version", .int(version)),
            ("generated_at", .string(DateText.iso8601(generatedAt))),
            ("vantage", vantage.map { .string($0) } ?? .null),
            (
                "summary",
                .object(
                    StatusSummary.reportingOrder.map { ($0.rawValue, .int(summary.count(of: $0))) }
                        + [
                            (
                                "severity",
                                .object(
                                    HostSeverity.worstFirst.map { severity in
                                        (severity.rawValue, .int(severities.count(of: severity)))
                                    })
                            )
                        ])
            ),
        ]).render()
        // The head without its closing brace; "hosts" is the last field.
        emit(String(head.dropLast(2)) + ",\n  \"hosts\": ")
        guard count > 0 else {
            emit("[]\n}\n")
            return
        }
        emit("[\n")
        // Blocks of hosts written on every core, emitted in order, a few
        // blocks at a time: a fleet's hosts are never all held as text.
        let blockSize = 256
        let blocksAtOnce = 8
        var start = 0
        while start < count {
            let blocks = HostBlocks(count: min(blocksAtOnce, (count - start + blockSize - 1) / blockSize))
            let first = start
            DispatchQueue.concurrentPerform(iterations: blocks.count) { block in
                let out = JSONBytes()
                for index in (first + block * blockSize)..<min(first + (block + 1) * blockSize, count) {
                    out.indent(2)
                    let host = report(index)
                    JSONObjectWriter.write(to: out, depth: 2) { writeHost(host, to: &$0) }
                    out.append(index == count - 1 ? "\n" : ",\n")
                }
                blocks.set(block, out.text)
            }
            blocks.texts.forEach(emit)
            start += blocks.count * blockSize
        }
        emit("  ]\n}\n")
    }

    /// The `summary` object's counts, blocks of hosts counted on every core.
    private static func summaries(count: Int, report: @Sendable (Int) -> HostReport) -> (StatusSummary, SeveritySummary) {
        let blockSize = 1_024
        let parts = SummaryParts(count: (count + blockSize - 1) / blockSize)
        DispatchQueue.concurrentPerform(iterations: parts.count) { block in
            var statuses = StatusSummary([])
            var severities = SeveritySummary([HostReport]())
            for index in (block * blockSize)..<min((block + 1) * blockSize, count) {
                let host = report(index)
                statuses.count(host)
                severities.count(host)
            }
            parts.set(block, statuses, severities)
        }
        return parts.total
    }

    /// One host object, for `inspect --format json`.
    public static func renderHost(_ report: HostReport) -> String {
        hostText(report, indent: 0) + "\n"
    }

    /// `inspect --format json`: the host object with the ready-to-paste
    /// `hosts:` stanza (null when no chain was obtained).
    public static func renderInspectedHost(_ report: HostReport) -> String {
        let out = JSONBytes()
        JSONObjectWriter.write(to: out, depth: 0) { fields in
            writeHost(report, to: &fields)
            fields.field("stanza", PinStanza.document(for: report).map { .string($0) } ?? .null)
        }
        return out.text + "\n"
    }

    /// The host object as it stands in a snapshot at `indent`.
    static func hostText(_ report: HostReport, indent: Int) -> String {
        let out = JSONBytes()
        JSONObjectWriter.write(to: out, depth: indent) { writeHost(report, to: &$0) }
        return out.text
    }

    static func writeHost(_ report: HostReport, to fields: inout JSONObjectWriter) {
        let result = report.result
        let chainObtained = report.status != .error
        fields.field("host", report.config.host)
        fields.field("port", report.config.port)
        fields.field("sni", report.config.serverName)
        fields.field("address", result.address)
        fields.field("status", report.status.rawValue)
        fields.field("matched_tiers", strings: report.matchedTiers.map(\.rawValue))
        fields.field("alerts", strings: report.alerts.map(\.rawValue))
        fields.field("severity", report.severity.rawValue)
        fields.field("reason", report.reason)
        fields.field("headline", report.headline.rawValue)
        fields.field("trusted", chainObtained && result.trusted)
        fields.field("trust_error", chainObtained ? result.trustError : nil)
        fields.field("leaf_days_left", report.leafDaysLeft)
        fields.field("leaf_not_after", report.leafNotAfter.map(DateText.iso8601))
        fields.field("days_left", report.daysLeft)
        fields.field("earliest_not_after", report.earliestExpiry.map { DateText.iso8601($0.notAfter) })
        fields.field("earliest_level", report.earliestExpiry?.level)
        fields.object("proxy") { proxy in
            proxy.field("detected", report.proxy.detected)
            proxy.field("source", report.proxy.source)
            proxy.field("url", report.proxy.url)
            proxy.field("intercepted", report.proxy.intercepted)
        }
        if let failure = result.failure {
            fields.object("error") { error in
                error.field("kind", failure.kind.rawValue)
                error.field("message", failure.message)
            }
        } else {
            fields.field("error", JSONValue.null)
        }
        // A fleet's row has a probe's time only where its series gave one.
        let elapsed = report.series.map(\.elapsed) ?? result.elapsed
        fields.field("elapsed_ms", elapsed.map { Int((max(0, $0) * 1000).rounded()) })
        fields.field("status_since", report.history?.statusSince.map(DateText.iso8601))
        fields.field("changes_24h", report.history?.changesLast24Hours)
        fields.field("renewal_estimate", report.history?.renewal.map(renewal) ?? .null)
        fields.field("clients", JSONValue.array(report.clients.map(client)))
        fields.field("next_chains", NextChainsJSON.chains(report.nextChains))
        fields.field("survives", report.series.map { NextChainsJSON.summary($0.survival) } ?? NextChainsJSON.summary(report.nextChains))
        fields.field("recommended_pins", NextChainsJSON.recommended(report.nextChains))
        fields.field("ct", CTJSON.logged(report.ct))
        fields.field("labels", ownerLabels(report.config))
        fields.field("runbook", report.config.runbook)
        fields.objects("chain", report.levels) { level, fields in writeLevel(level, series: report.series, to: &fields) }
        VariantsJSON.write(report, to: &fields)
        fields.field("acknowledged", AcknowledgementJSON.value(report.acknowledgement))
    }

    /// `certificate_transparency` only for a release that requires it:
    /// what its SCTs came to, or why they could not be checked.
    static func client(_ verdict: ClientHostVerdict) -> JSONValue {
        .object(
            [
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
                ("survives", NextChainsJSON.summary(verdict.report.nextChains)),
            ] + (verdict.transparencyNote.map { [("certificate_transparency", JSONValue.string($0))] } ?? []))
    }

    /// `labels:` as an object, keys sorted so that output is stable.
    static func ownerLabels(_ config: HostConfig) -> JSONValue {
        .object(config.labels.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.string($0.value)) })
    }

    static func renewal(_ estimate: RenewalEstimate) -> JSONValue {
        .object([
            ("date", .string(DateText.iso8601(estimate.date))),
            ("basis", .string(estimate.basis.rawValue)),
            ("cadence_days", .optional(estimate.cadence.map { Int(($0 / 86_400).rounded()) })),
            ("rule", .optional(estimate.rule)),
        ])
    }

    /// `series`: the level was rebuilt from a fleet's series, which say
    /// neither whether the server sent it nor when it started.
    private static func writeLevel(_ level: LevelReport, series: SeriesFacts?, to fields: inout JSONObjectWriter) {
        fields.field("level", level.level)
        fields.field("role", level.role.rawValue)
        fields.field("from_server", series == nil ? .bool(level.certificate.fromServer) : JSONValue.null)
        CertificateDescription(level.certificate.facts, daysLeft: level.daysLeft).writeFields(
            to: &fields, exported: series.map { .init(dated: $0.datedLevels.contains(level.level)) })
        fields.field("lifetime_days", series == nil ? level.lifetime.days : nil, places: 2)
        fields.field("lifetime_used", level.lifetimeUsed, places: 3)
        fields.objects("matched", level.matches) { match, matched in
            matched.field("tier", match.tier.rawValue)
            matched.field("pin", match.pin.text)
        }
    }
}

/// The text of each block of hosts, set from the thread that wrote it.
private final class HostBlocks: @unchecked Sendable {
    private let lock = NSLock()
    private var written: [String]

    init(count: Int) {
        written = Array(repeating: "", count: count)
    }

    var count: Int { written.count }

    func set(_ block: Int, _ text: String) {
        lock.lock()
        written[block] = text
        lock.unlock()
    }

    var texts: [String] {
        lock.lock()
        defer { lock.unlock() }
        return written
    }
}

/// Each block's counts, set from the thread that counted it.
private final class SummaryParts: @unchecked Sendable {
    private let lock = NSLock()
    private var statuses: [StatusSummary]
    private var severities: [SeveritySummary]

    init(count: Int) {
        statuses = Array(repeating: StatusSummary([]), count: count)
        severities = Array(repeating: SeveritySummary([HostReport]()), count: count)
    }

    var count: Int { statuses.count }

    func set(_ block: Int, _ statuses: StatusSummary, _ severities: SeveritySummary) {
        lock.lock()
        self.statuses[block] = statuses
        self.severities[block] = severities
        lock.unlock()
    }

    var total: (StatusSummary, SeveritySummary) {
        lock.lock()
        defer { lock.unlock() }
        var status = StatusSummary([])
        var severity = SeveritySummary([HostReport]())
        statuses.forEach { status.add($0) }
        severities.forEach { severity.add($0) }
        return (status, severity)
    }
}
