import Foundation

/// Every metric family's name, in the order an exposition lists them.
/// A new family is a case here and its row in `definition` below (the
/// compiler holds the two together); README's metrics table names it too
/// (`MetricTableTests` holds the README to this list).
///
/// A host's series are few on purpose (Prometheus keeps every one for every
/// host): a verdict is one value series and one info series, not one series
/// per possible value, a family that only says "no" to most hosts is
/// exported for the hosts it says "yes" for, and what many hosts share (the
/// certificates above a leaf) is written once and named from each host's
/// series (`ca_chain`). Deprecated families are
/// exported only with `deprecated_series: true`, for one release.
package enum MetricFamilyName: String, CaseIterable, Sendable {
    case hostSeverityCode = "pinwatch_host_severity_code"
    case hostStatus = "pinwatch_host_status"
    case hostSeverity = "pinwatch_host_severity"
    case hostReasonInfo = "pinwatch_host_reason_info"
    case hostLabels = "pinwatch_host_labels"
    case hostAlert = "pinwatch_host_alert"
    case leafNotAfter = "pinwatch_leaf_not_after_timestamp_seconds"
    case chainNotAfter = "pinwatch_chain_not_after_timestamp_seconds"
    case chainLevelNotAfter = "pinwatch_chain_level_not_after_timestamp_seconds"
    case chainLevelNotBefore = "pinwatch_chain_level_not_before_timestamp_seconds"
    case chainInfo = "pinwatch_chain_info"
    case caLevelInfo = "pinwatch_ca_level_info"
    case chainLevelInfo = "pinwatch_chain_level_info"
    case pinMatch = "pinwatch_pin_match"
    case nextChainSurvives = "pinwatch_next_chain_survives"
    case probeDuration = "pinwatch_probe_duration_seconds"
    case probeError = "pinwatch_probe_error"
    case addressStatus = "pinwatch_address_status"
    case hostAcknowledged = "pinwatch_host_acknowledged"
    case hosts = "pinwatch_hosts"
    case hostsBySeverity = "pinwatch_hosts_by_severity"
    case cycleProbeErrors = "pinwatch_cycle_probe_errors"
    case cycleDuration = "pinwatch_cycle_duration_seconds"
    case lastCycle = "pinwatch_last_cycle_timestamp_seconds"
    case cycles = "pinwatch_cycles_total"
    case pollInterval = "pinwatch_poll_interval_seconds"
    case cycleFailures = "pinwatch_cycle_failures_total"
    case buildInfo = "pinwatch_build_info"
    case historyWriteErrors = "pinwatch_history_write_errors_total"
    case chainChanges = "pinwatch_chain_changes_total"
    case processCPUSeconds = "process_cpu_seconds_total"
    case processOpenDescriptors = "process_open_fds"
    case processMaximumDescriptors = "process_max_fds"
    case processResidentMemory = "process_resident_memory_bytes"
    case processStartTime = "process_start_time_seconds"
    case clientReports = "pinwatch_client_reports_total"
    case clientReportsRefused = "pinwatch_client_reports_refused_total"
    case probeSuccess = "pinwatch_probe_success"
    case ctNextChainSurvives = "pinwatch_ct_next_chain_survives"
    case ctLogVerifiedSize = "pinwatch_ct_log_verified_size"
    case ctLogErrors = "pinwatch_ct_log_errors_total"
}

extension MetricFamilyName {
    /// The table: one row per family.
    var definition: MetricFamily {
        typealias Exposition = PrometheusExposition
        switch self {
        case .hostSeverityCode:
            return MetricFamily(
                self, .gauge,
                help:
                    "Severity of each host as the code pinwatch check exits with: 0 ok, 1 warning, 2 critical, 3 unknown (status and the rest: pinwatch_host_reason_info).",
                absence: .never,
                .host { out, name, report, host in
                    out.sample(name, host.labels, nil, nil, Double(CheckState(report.severity).rawValue))
                })
        case .hostStatus:
            return MetricFamily(
                self, .gauge,
                help:
                    "Deprecated, removed in the next release: pinwatch_host_reason_info's status label. Status of each host: 1 for the status it has now, 0 for the others.",
                absence: .withoutDeprecatedSeries,
                .host { out, name, report, host in
                    for (position, value) in HostStatus.allCases.enumerated() {
                        out.append(name)
                        out.append("{")
                        out.append(host.labels)
                        out.append(host.render.statusTails[position])
                        out.append(report.status == value ? "1\n" : "0\n")
                    }
                })
        case .hostSeverity:
            return MetricFamily(
                self, .gauge,
                help:
                    "Deprecated, removed in the next release: pinwatch_host_severity_code. Severity of each host (critical, unknown, warning, ok): 1 for its own, 0 for the others.",
                absence: .withoutDeprecatedSeries,
                .host { out, name, report, host in
                    for (position, value) in HostSeverity.worstFirst.enumerated() {
                        out.append(name)
                        out.append("{")
                        out.append(host.labels)
                        out.append(host.render.severityTails[position])
                        out.append(report.severity == value ? "1\n" : "0\n")
                    }
                })
        case .hostReasonInfo:
            // Everything a remote dashboard's row shows, in one series per
            // host: the labels change together when the verdict does.
            return MetricFamily(
                self, .gauge,
                help:
                    "Each host's verdict as labels: status, severity, headline, matched pin tiers and the sentence alert annotations quote.",
                absence: .never,
                .host { out, name, report, host in
                    out.append(name)
                    out.append("{")
                    out.append(host.labels)
                    out.append(",status=\"")
                    out.append(string: report.status.rawValue)
                    out.append("\",severity=\"")
                    out.append(string: report.severity.rawValue)
                    out.append("\",headline=\"")
                    out.append(string: report.headline.rawValue)
                    out.append("\",tiers=\"")
                    out.append(string: report.matchedTiers.map(\.rawValue).joined(separator: ","))
                    out.append("\",reason=\"")
                    out.append(string: Exposition.escape(ReasonLabel.text(report)))
                    out.append("\"} 1\n")
                })
        case .hostLabels:
            return MetricFamily(
                self, .gauge,
                help:
                    "Each host's labels: and runbook: as labels, for joins (group_left); every series has every label name, empty where a host has none.",
                absence: .never,
                .host { out, name, report, host in
                    out.append(name)
                    out.append("{")
                    out.append(host.labels)
                    out.append(string: Exposition.ownerLabels(report.config, names: host.render.ownerLabelNames))
                    out.append("} 1\n")
                })
        case .hostAlert:
            return MetricFamily(
                self, .gauge, help: "Alerts a host has now (only present alerts are exported).", absence: .someHosts,
                .host { out, name, report, host in
                    for alert in report.alerts {
                        out.sample(name, host.labels, "alert", alert.rawValue, 1)
                    }
                })
        case .leafNotAfter:
            return MetricFamily(
                self, .gauge,
                help: "Expiry of each host's leaf certificate, Unix time (absent without a chain or when a proxy forged it).",
                absence: .someHosts,
                .host { out, name, report, host in
                    // A forged chain's dates are the proxy's, not the server's.
                    guard !report.proxy.intercepted else { return }
                    for level in report.levels where level.level == 0 {
                        out.sample(name, host.labels, nil, nil, level.certificate.facts.notAfter.timeIntervalSince1970)
                    }
                })
        case .chainNotAfter:
            return MetricFamily(
                self, .gauge,
                help:
                    "Expiry of the certificate of each host's chain that expires first, Unix time, with its level and role: when pinned clients fail (absent without a chain or when a proxy forged it).",
                absence: .someHosts,
                .host { out, name, report, host in
                    // nil for a forged chain: its dates are the proxy's. The
                    // level says which certificate it is, so a fleet view
                    // shows the date at its level rather than guessing.
                    guard let expiry = report.earliestExpiry, let level = report.levels.first(where: { $0.level == expiry.level })
                    else { return }
                    out.levelSample(name, host.labels, level, expiry.notAfter.timeIntervalSince1970)
                })
        case .chainLevelNotAfter:
            return MetricFamily(
                self, .gauge,
                help:
                    "Deprecated, removed in the next release: pinwatch_chain_not_after_timestamp_seconds. Expiry of each certificate of each host's chain, Unix time (absent when a proxy forged the chain).",
                absence: .withoutDeprecatedSeries,
                .host { out, name, report, host in
                    guard !report.proxy.intercepted else { return }
                    for level in report.levels {
                        out.levelSample(name, host.labels, level, level.certificate.facts.notAfter.timeIntervalSince1970)
                    }
                })
        case .chainLevelNotBefore:
            return MetricFamily(
                self, .gauge,
                help:
                    "Deprecated, removed in the next release: the renewal_overdue alert. Start of validity of each certificate of each host's chain, Unix time (absent when a proxy forged the chain).",
                absence: .withoutDeprecatedSeries,
                .host { out, name, report, host in
                    guard !report.proxy.intercepted else { return }
                    for level in report.levels {
                        out.levelSample(name, host.labels, level, level.certificate.facts.notBefore.timeIntervalSince1970)
                    }
                })
        case .chainInfo:
            // One series per host for its chain: the leaf's facts and each
            // tier's pin result here, the CA levels by reference. Those are
            // shared by most of a fleet, and written once per render
            // (`pinwatch_ca_level_info`) rather than once per host.
            return MetricFamily(
                self, .gauge,
                help:
                    "Each host's chain: its leaf's SPKI pin and subject; leaf_pin and ca_pin, \"match\" or \"mismatch\" for the pins of that tier (empty where the host has none), ca_pin_levels the levels a CA pin matches; ca_chain names its CA levels in pinwatch_ca_level_info (absent without a chain).",
                absence: .someHosts,
                .host { out, name, report, host in
                    guard let leaf = report.levels.first(where: { $0.level == 0 }) else { return }
                    let pins = report.config.pins
                    out.append(name)
                    out.append("{")
                    out.append(host.labels)
                    out.append(",spki_sha256=\"")
                    out.append(base64: leaf.certificate.facts.spkiSHA256)
                    out.append("\",subject=\"")
                    out.append(string: Exposition.escape(leaf.certificate.facts.subject))
                    out.append("\",leaf_pin=\"")
                    if case let (_, matches)? = MetricFamilyName.pinResult(leaf, pins) { out.append(matches ? "match" : "mismatch") }
                    out.append("\",ca_pin=\"")
                    if !pins.pins(in: .ca).isEmpty {
                        func matchesCA(_ level: LevelReport) -> Bool { level.level > 0 && level.matches.contains { $0.tier == .ca } }
                        out.append(report.levels.contains(where: matchesCA) ? "match" : "mismatch")
                        out.append("\",ca_pin_levels=\"")
                        var first = true
                        for level in report.levels where matchesCA(level) {
                            if !first { out.append(",") }
                            out.append(integer: Int64(level.level))
                            first = false
                        }
                    } else {
                        out.append("\",ca_pin_levels=\"")
                    }
                    out.append("\",ca_chain=\"")
                    out.append(string: host.caChain)
                    out.append("\"} 1\n")
                })
        case .caLevelInfo:
            return MetricFamily(
                self, .gauge,
                help:
                    "One series per certificate above the leaf of each distinct chain the hosts serve, with its level, role, SPKI pin and subject; pinwatch_chain_info's ca_chain label joins a host to its levels.",
                absence: .someHosts,
                .exposition { out, name, render in
                    var written: Set<String> = []
                    for (report, chain) in zip(render.reports, render.caChains) {
                        guard !chain.isEmpty, written.insert(chain).inserted else { continue }
                        for level in report.levels where level.level > 0 {
                            out.append(name)
                            out.append("{ca_chain=\"")
                            out.append(string: chain)
                            out.append("\",")
                            MetricFamilyName.appendLevelLabels(level, to: &out)
                            out.append("\"} 1\n")
                        }
                    }
                })
        case .chainLevelInfo:
            return MetricFamily(
                self, .gauge,
                help:
                    "Deprecated, removed in the next release: pinwatch_chain_info and pinwatch_ca_level_info. One series per certificate of each host's chain, with its role, SPKI pin, subject, and whether a pin of the tier that applies (leaf at level 0, ca above) matches it: pin=\"match\" or \"mismatch\", empty where the host has no pin of that tier.",
                absence: .withoutDeprecatedSeries,
                .host { out, name, report, host in
                    let pins = report.config.pins
                    for level in report.levels {
                        out.append(name)
                        out.append("{")
                        out.append(host.labels)
                        out.append(",")
                        MetricFamilyName.appendLevelLabels(level, to: &out)
                        // A word, not 0 or 1: the series stays one per level.
                        if case let (tier, matches)? = MetricFamilyName.pinResult(level, pins) {
                            out.append(matches ? "\",pin=\"match\",tier=\"" : "\",pin=\"mismatch\",tier=\"")
                            out.append(string: tier.rawValue)
                            out.append("\"} 1\n")
                        } else {
                            out.append("\",pin=\"\",tier=\"\"} 1\n")
                        }
                    }
                })
        case .pinMatch:
            return MetricFamily(
                self, .gauge,
                help:
                    "Deprecated, removed in the next release: pinwatch_chain_info's leaf_pin, ca_pin and ca_pin_levels labels. Whether a configured pin of the tier that applies matches the chain level (only levels whose tier has pins).",
                absence: .withoutDeprecatedSeries,
                .host { out, name, report, host in
                    let pins = report.config.pins
                    for level in report.levels {
                        guard case let (tier, matches)? = MetricFamilyName.pinResult(level, pins) else { continue }
                        out.append(name)
                        out.append("{")
                        out.append(host.labels)
                        out.append(",level=\"")
                        out.append(integer: Int64(level.level))
                        out.append("\",tier=\"")
                        out.append(string: tier.rawValue)
                        out.append(matches ? "\"} 1\n" : "\"} 0\n")
                    }
                })
        case .nextChainSurvives:
            return MetricFamily(
                self, .gauge,
                help:
                    "Whether the configured pins still match the chains a renewal may land on, per scenario (absent when the catalogue cannot tell).",
                absence: .someHosts,
                .host { out, name, report, host in
                    guard let judged = report.nextChains else { return }
                    // Absent, not 0, where the catalogue cannot judge: an
                    // unknown is not a break to alert on.
                    for scenario in NextChainScenario.allCases {
                        guard let survives = judged.survives(scenario) else { continue }
                        out.sample(name, host.labels, "scenario", scenario.rawValue, survives ? 1 : 0)
                    }
                })
        case .probeDuration:
            return MetricFamily(
                self, .gauge, help: "How long the last probe of each host took.", absence: .never,
                .host { out, name, report, host in
                    out.sample(name, host.labels, nil, nil, max(0, report.result.elapsed))
                })
        case .probeError:
            return MetricFamily(
                self, .gauge, help: "Hosts whose last probe failed, by kind of failure (only failed hosts are exported).",
                absence: .someHosts,
                .host { out, name, report, host in
                    guard let failure = report.result.failure else { return }
                    out.sample(name, host.labels, "kind", failure.kind.rawValue, 1)
                })
        case .addressStatus:
            return MetricFamily(
                self, .gauge,
                help:
                    "Status of each address of a host with addresses: all (and of each key type with key_types:): 1 for its status, 0 for the others; only those hosts with more than one probe are exported.",
                absence: .someHosts,
                .host { out, name, report, host in
                    // A host of one probe: its own status says the same.
                    guard report.config.probesEveryAddress, report.variants.count > 1 else { return }
                    // One series per status for each probe, so a rotation
                    // shows address by address.
                    for verdict in report.variants {
                        var probeLabels = ",address=\"\(Exposition.escape(verdict.variant.address ?? ""))\""
                        if let keyType = verdict.variant.keyType { probeLabels += ",key_type=\"\(keyType.rawValue)\"" }
                        let probe = Array(probeLabels.utf8)
                        for (position, value) in HostStatus.allCases.enumerated() {
                            out.append(name)
                            out.append("{")
                            out.append(host.labels)
                            out.append(probe)
                            out.append(host.render.statusTails[position])
                            out.append(verdict.status == value ? "1\n" : "0\n")
                        }
                    }
                })
        case .hostAcknowledged:
            return MetricFamily(
                self, .gauge,
                help:
                    "1 while a host's problem is acknowledged (silence: or the dashboard's a) and unchanged (only acknowledged hosts are exported).",
                absence: .someHosts,
                .host { out, name, report, host in
                    guard report.acknowledgement != nil else { return }
                    out.sample(name, host.labels, nil, nil, 1)
                })
        case .hosts:
            return MetricFamily(
                self, .gauge, help: "Hosts by status.", absence: .never,
                .exposition { out, name, render in
                    let counts = StatusSummary(render.reports)
                    for value in StatusSummary.reportingOrder {
                        out.sample(name, [], "status", value.rawValue, Double(counts.count(of: value)))
                    }
                })
        case .hostsBySeverity:
            return MetricFamily(
                self, .gauge, help: "Hosts by severity.", absence: .never,
                .exposition { out, name, render in
                    let counts = SeveritySummary(render.reports)
                    for value in HostSeverity.worstFirst {
                        out.sample(name, [], "severity", value.rawValue, Double(counts.count(of: value)))
                    }
                })
        case .cycleProbeErrors:
            return MetricFamily(
                self, .gauge, help: "Failed probes of the last cycle, by kind (every kind, 0 included).", absence: .never,
                .exposition { out, name, render in
                    for kind in ProbeErrorKind.allCases {
                        out.sample(name, [], "kind", kind.rawValue, Double(render.errorCounts[kind] ?? 0))
                    }
                })
        case .cycleDuration:
            return MetricFamily(
                self, .gauge, help: "How long the last completed cycle took (absent from /probe).", absence: .withoutCycle,
                .exposition { out, name, render in
                    guard let cycle = render.cycle else { return }
                    out.sample(name, nil, nil, nil, cycle.duration)
                })
        case .lastCycle:
            return MetricFamily(
                self, .gauge, help: "When the last cycle completed, Unix time (absent from /probe).", absence: .withoutCycle,
                .exposition { out, name, render in
                    guard let cycle = render.cycle else { return }
                    out.sample(name, nil, nil, nil, cycle.finishedAt.timeIntervalSince1970)
                })
        case .cycles:
            return MetricFamily(
                self, .counter, help: "Cycles completed since start (absent from /probe).", absence: .withoutCycle,
                .exposition { out, name, render in
                    guard let cycle = render.cycle else { return }
                    out.sample(name, nil, nil, nil, Double(cycle.completedCycles))
                })
        case .pollInterval:
            return MetricFamily(
                self, .gauge, help: "The configured interval between cycles (serve only).", absence: .withoutInterval,
                .exposition { out, name, render in
                    guard let interval = render.cycle?.interval else { return }
                    out.sample(name, nil, nil, nil, interval)
                })
        case .cycleFailures:
            return MetricFamily(
                self, .counter,
                help: "Cycles that failed because pinwatch itself ran out of a resource; their unprobed hosts kept their verdicts.",
                absence: .withoutCycle,
                .exposition { out, name, render in
                    guard let cycle = render.cycle else { return }
                    for shortage in LocalResourceShortage.allCases {
                        out.sample(name, [], "reason", shortage.rawValue, Double(cycle.failures[shortage] ?? 0))
                    }
                })
        case .buildInfo:
            return MetricFamily(
                self, .gauge, help: "The running pinwatch's version.", absence: .never,
                .exposition { out, name, render in
                    let labels = render.vantage.map { Array("vantage=\"\(Exposition.escape($0))\"".utf8) } ?? []
                    out.sample(name, labels, "version", Exposition.escape(render.version), 1)
                })
        case .historyWriteErrors:
            return MetricFamily(
                self, .counter, help: "History recordings that failed (full disk, read-only file system) since start.",
                absence: .withoutHistory, .history)
        case .chainChanges:
            return MetricFamily(
                self, .counter, help: "Changes of a host's CA-level keys (what chain_changed warns of) since start.",
                absence: .withoutHistory, .history)
        case .processCPUSeconds:
            return MetricFamily(
                self, .counter, help: "Total user and system CPU time spent in seconds.", absence: .outsideScrapes,
                .scrape { $0.cpuSeconds })
        case .processOpenDescriptors:
            return MetricFamily(
                self, .gauge, help: "Number of open file descriptors.", absence: .outsideScrapes,
                .scrape { $0.openDescriptors.map(Double.init) })
        case .processMaximumDescriptors:
            return MetricFamily(
                self, .gauge, help: "Maximum number of open file descriptors.", absence: .outsideScrapes,
                .scrape { $0.maximumDescriptors.map(Double.init) })
        case .processResidentMemory:
            return MetricFamily(
                self, .gauge, help: "Resident memory size in bytes.", absence: .outsideScrapes,
                .scrape { $0.residentMemoryBytes.map(Double.init) })
        case .processStartTime:
            return MetricFamily(
                self, .gauge, help: "Start time of the process since unix epoch in seconds.", absence: .outsideScrapes,
                .scrape { $0.startTime })
        case .clientReports:
            return MetricFamily(
                self, .counter,
                help: "Pin-failure reports clients posted to report_uri since start, by configured host and client.",
                absence: .withoutReportURI, .clientReports)
        case .clientReportsRefused:
            return MetricFamily(
                self, .counter, help: "Posts to report_uri turned away since start, by reason (token, size, rate, invalid, storage).",
                absence: .withoutReportURI, .clientReports)
        case .probeSuccess:
            return MetricFamily(
                self, .gauge, help: "1 when a chain was obtained and the host is not critical, else 0.", absence: .outsideProbe,
                .probe)
        case .ctNextChainSurvives:
            return MetricFamily(
                self, .gauge,
                help:
                    "Whether each client release survives a certificate logged in Certificate Transparency for the host (1) or breaks on it (0), by serial and issuer.",
                absence: .withoutCT,
                .host { out, name, report, host in
                    for logged in report.ct?.logged ?? [] {
                        let releases = logged.verdict.survives.map { ($0, true) } + logged.verdict.breaks.map { ($0, false) }
                        for (client, survives) in releases {
                            out.append(name)
                            out.append("{")
                            out.append(host.labels)
                            out.append(",client=\"")
                            out.append(string: Exposition.escape(client))
                            out.append("\",serial=\"")
                            out.append(string: Exposition.escape(logged.serial))
                            out.append("\",issuer=\"")
                            out.append(string: Exposition.escape(logged.issuer))
                            out.append(survives ? "\"} 1\n" : "\"} 0\n")
                        }
                    }
                })
        case .ctLogVerifiedSize:
            return MetricFamily(
                self, .gauge, help: "The size of each followed Certificate Transparency log's last verified tree.",
                absence: .withoutCT,
                .exposition { out, name, render in
                    for log in render.cycle?.ctLogs ?? [] {
                        guard let size = log.verifiedSize else { continue }
                        out.sample(name, [], "log", Exposition.escape(log.log), Double(size))
                    }
                })
        case .ctLogErrors:
            return MetricFamily(
                self, .counter,
                help:
                    "Steps of each followed Certificate Transparency log that failed since start, by reason (bad_signature, inconsistent, entries_not_in_tree, malformed and too_large are the log's misbehaviour).",
                absence: .withoutCT,
                .exposition { out, name, render in
                    for log in render.cycle?.ctLogs ?? [] {
                        for reason in log.errors.keys.sorted() {
                            out.append(name)
                            out.append("{log=\"")
                            out.append(string: Exposition.escape(log.log))
                            out.append("\",reason=\"")
                            out.append(string: reason)
                            out.append("\"} ")
                            out.append(integer: Int64(log.errors[reason] ?? 0))
                            out.append("\n")
                        }
                    }
                })
        }
    }

    /// The name of a chain's CA levels, those above level 0 (`ca_chain`):
    /// 16 hex digits of a 64-bit FNV-1a hash of each one's number, role,
    /// SPKI and subject, so every host under the same certificates, on every
    /// instance, names the same series; empty for a chain of the leaf alone.
    /// Not a security boundary: a collision would show one chain's CA levels
    /// for another's in a view, never change a verdict.
    static func caChain(_ levels: [LevelReport]) -> String {
        let prime: UInt64 = 0x0000_0100_0000_01b3
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        var any = false
        for level in levels where level.level > 0 {
            any = true
            hash = (hash ^ UInt64(truncatingIfNeeded: level.level)) &* prime
            for byte in level.role.rawValue.utf8 { hash = (hash ^ UInt64(byte)) &* prime }
            // A separator no UTF-8 text holds, between fields.
            hash = (hash ^ 0xff) &* prime
            for byte in level.certificate.facts.spkiSHA256 { hash = (hash ^ UInt64(byte)) &* prime }
            hash = (hash ^ 0xff) &* prime
            for byte in level.certificate.facts.subject.utf8 { hash = (hash ^ UInt64(byte)) &* prime }
            hash = (hash ^ 0xff) &* prime
        }
        guard any else { return "" }
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8](repeating: 0, count: 16)
        for index in 0..<16 { text[index] = digits[Int(hash >> UInt64(60 - 4 * index) & 0xf)] }
        return String(decoding: text, as: UTF8.self)
    }

    /// `level="…",role="…",spki_sha256="…",subject="…` (the closing quote
    /// is the caller's, which may add labels): one certificate's labels,
    /// alike in the CA levels' family and the deprecated per-level one.
    private static func appendLevelLabels(_ level: LevelReport, to out: inout ExpositionBuffer) {
        out.append("level=\"")
        out.append(integer: Int64(level.level))
        out.append("\",role=\"")
        out.append(string: level.role.rawValue)
        out.append("\",spki_sha256=\"")
        out.append(base64: level.certificate.facts.spkiSHA256)
        out.append("\",subject=\"")
        out.append(string: PrometheusExposition.escape(level.certificate.facts.subject))
    }

    /// The tier whose pins apply to a level (leaf at level 0, ca above) and
    /// whether one of them matches it; nil when the host has no pin of it.
    private static func pinResult(_ level: LevelReport, _ pins: PinSet) -> (PinTier, Bool)? {
        let tier: PinTier = level.role == .leaf ? .leaf : .ca
        guard !pins.pins(in: tier).isEmpty else { return nil }
        return (tier, level.matches.contains { $0.tier == tier })
    }
}
