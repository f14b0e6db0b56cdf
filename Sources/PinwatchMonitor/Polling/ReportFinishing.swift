import Foundation
import PinwatchCore
import PinwatchProbe

/// One host's probes on their way to its report: what the engine gave,
/// then what each finishing step made of it.
struct FinishingHost: @unchecked Sendable {
    struct Probe {
        var variant: ProbeVariant
        var result: ProbeResult
        var report: HostReport?
    }

    var index: Int
    var host: HostConfig
    /// One for a plain host; one per address and key type otherwise.
    var probes: [Probe]
    /// `addresses: all`'s addresses left out of this cycle's window.
    var notProbed: [String] = []
    var report: HostReport?

    init(index: Int, host: HostConfig, outcomes: [(ProbeVariant, ProbeResult)], notProbed: [String] = []) {
        self.index = index
        self.host = host
        probes = outcomes.map { Probe(variant: $0.0, result: $0.1) }
        self.notProbed = notProbed
    }
}

/// What is done to a host's probe results before anyone sees the report.
enum FinishingStep: Sendable, CaseIterable {
    /// Each probe judged (status, matches, days left, next chains).
    case verdict
    /// Each client release's view of each probe folded into its verdict.
    case clients
    /// A host's probes folded into one report: the worst, and how they agree.
    case fold
    /// What Certificate Transparency logged for the host (`ct:`):
    /// `next_leaf_logged`, `ct_log_misbehaving`.
    case transparency
    /// The store's facts: since when, forecast, `chain_changed`.
    case history
    /// A silence or the dashboard's acknowledgement marks the report.
    case acknowledgements
}

/// The one ordered list of finishing steps every command's reports pass
/// through, whether its host is one probe or several, and whether the
/// cycle is a dashboard's, an exporter's, `check`'s or `snapshot`'s.
struct ReportFinishing: @unchecked Sendable {
    /// Why this order:
    /// - clients after the verdict: a release's view reads the verdict's
    ///   matches and next chains, and may make the host's severity worse;
    /// - the fold after both: each probe is judged as the whole host would
    ///   be (its clients included), so the worst probe is the worst for the
    ///   host's clients too, and the fold never sees a half-made verdict;
    /// - history after the fold: the store records one row per host, from
    ///   the folded verdict and each probe's chain, and `chain_changed`
    ///   comes out of what it recorded;
    /// - transparency after the fold and before the history: what the
    ///   logs say is about the host, not one probe, and the store records
    ///   the severity it decides;
    /// - acknowledgements last: a silence holds while the state it
    ///   acknowledged stays, and that state is the one the history decided.
    static let order: [FinishingStep] = [.verdict, .clients, .fold, .transparency, .history, .acknowledgements]

    /// The steps before the history, but the logs: `/probe`'s ad hoc
    /// hosts, which no store records, nobody acknowledges and no log is
    /// watched for.
    static let judging: [FinishingStep] = Array(order.prefix { $0 != .history }).filter { $0 != .transparency }

    /// One chain judged as the host's clients would judge it, with no
    /// probes to fold: `preflight`'s chain nobody served yet.
    static let oneChain: [FinishingStep] = Array(order.prefix { $0 != .fold })

    var config: Config
    var history: HostHistoryRecorder?
    var acknowledgements: AcknowledgementLedger?
    /// The logs followed for `ct:`; nil without it.
    var ct: CTFollowing? = nil
    var now: @Sendable () -> Date
    var steps: [FinishingStep] = order
    /// Shared by this poller's cycles (copies of the struct share it).
    let nextChains = NextChainMemo()

    /// The reports of `hosts`, in their order, each through every step.
    func finish(_ hosts: [FinishingHost]) -> [HostReport] {
        var hosts = hosts
        // One date for the batch: every report of it is judged at one time.
        let date = now()
        // Pools CT showed stand in for those the data does not know.
        let catalogue = ct?.catalogue(over: config.catalogue) ?? config.catalogue
        for step in steps {
            switch step {
            case .verdict: judge(&hosts, at: date, catalogue: catalogue)
            case .clients: applyClients(&hosts, at: date, catalogue: catalogue)
            case .fold: fold(&hosts)
            case .transparency: addTransparency(&hosts, at: date)
            case .history: record(&hosts, at: date)
            case .acknowledgements: acknowledge(&hosts)
            }
        }
        return hosts.map { $0.report ?? $0.probes.first?.report ?? Self.unfinished($0.host, config: config, at: date) }
    }

    private func judge(_ hosts: inout [FinishingHost], at date: Date, catalogue: Catalogue) {
        for index in hosts.indices {
            let host = hosts[index].host
            for probe in hosts[index].probes.indices {
                hosts[index].probes[probe].report = Verdict.report(
                    for: host, result: hosts[index].probes[probe].result, now: date, warnDays: config.warnDays,
                    criticalDays: config.criticalDays, catalogue: catalogue, renewShare: config.renewShare, memo: nextChains)
            }
        }
    }

    private func applyClients(_ hosts: inout [FinishingHost], at date: Date, catalogue: Catalogue) {
        guard !config.clients.isEmpty else { return }
        for index in hosts.indices {
            for probe in hosts[index].probes.indices {
                guard let report = hosts[index].probes[probe].report else { continue }
                hosts[index].probes[probe].report = ClientVerdicts.apply(
                    to: report, clients: config.clients, now: date, warnDays: config.warnDays,
                    criticalDays: config.criticalDays, catalogue: catalogue, renewShare: config.renewShare)
            }
        }
    }

    /// A plain host is its one probe; a host of several probes gets the
    /// worst of them (`VariantFold`), even when only one was made (a
    /// failed lookup), so its views still say which probe it was.
    private func fold(_ hosts: inout [FinishingHost]) {
        for index in hosts.indices {
            let host = hosts[index].host
            let judged = hosts[index].probes.compactMap { probe in probe.report.map { (variant: probe.variant, report: $0) } }
            let severalProbes = host.probesEveryAddress || !host.keyTypes.isEmpty
            if severalProbes, let folded = VariantFold.fold(judged, notProbed: hosts[index].notProbed) {
                hosts[index].report = folded
            } else {
                hosts[index].report = judged.first?.report
            }
        }
    }

    private func addTransparency(_ hosts: inout [FinishingHost], at date: Date) {
        guard let ct else { return }
        for index in hosts.indices {
            guard let report = hosts[index].report else { continue }
            hosts[index].report = report.with(ct: ct.facts(for: hosts[index].host.serverName), now: date)
        }
    }

    private func record(_ hosts: inout [FinishingHost], at date: Date) {
        guard let history else { return }
        let indices = hosts.indices.filter { hosts[$0].report != nil }
        let recorded = history.record(indices.compactMap { hosts[$0].report }, at: date)
        for (index, report) in zip(indices, recorded) { hosts[index].report = report }
    }

    private func acknowledge(_ hosts: inout [FinishingHost]) {
        guard let acknowledgements else { return }
        let indices = hosts.indices.filter { hosts[$0].report != nil }
        let marked = acknowledgements.apply(indices.compactMap { hosts[$0].report })
        for (index, report) in zip(indices, marked) { hosts[index].report = report }
    }

    /// A host the steps made no report of (no probe finished): an error,
    /// never a hole in the list.
    static func unfinished(_ host: HostConfig, config: Config, at date: Date) -> HostReport {
        Verdict.report(
            for: host, result: .failed(ProbeFailure(kind: .timeout, message: "probe did not finish"), elapsed: 0), now: date,
            warnDays: config.warnDays, criticalDays: config.criticalDays, catalogue: config.catalogue, renewShare: config.renewShare)
    }
}
