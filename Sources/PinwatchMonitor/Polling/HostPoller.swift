import Dispatch
import Foundation
import PinwatchCore
import PinwatchProbe
import PinwatchSystem

/// The one poll pipeline: configured hosts → probe targets → engine →
/// verdicts → reports, used by every command that polls (`snapshot`,
/// `check`, `inspect`, `watch`, `demo`).
///
/// Verdicts are made on the engine's delivery thread, and reports reach
/// the caller's queue in batches: one block per burst of results, not one
/// per host, so a 10,000-host cycle does not flood the main queue.
///
/// `@unchecked Sendable`: the configuration is immutable; the batch being
/// gathered is guarded by `lock`.
public final class HostPoller: @unchecked Sendable {
    public typealias Batch = [(index: Int, report: HostReport)]

    /// How a cycle ended. A probe that failed for want of a local resource
    /// (descriptors, memory) says nothing about its host: that host gets no
    /// report this cycle, so its previous verdict stands and no transition
    /// fires, and the cycle counts as failed.
    public struct CycleOutcome: Sendable {
        /// Hosts left without a report, by what ran out.
        public var shortages: [LocalResourceShortage: Int] = [:]

        public init(shortages: [LocalResourceShortage: Int] = [:]) {
            self.shortages = shortages
        }

        public var failed: Bool { !shortages.isEmpty }
    }

    public let config: Config
    /// Records each cycle and adds history to its reports; nil with
    /// `state: off`.
    public let history: HostHistoryRecorder?
    /// Marks the reports whose problem is acknowledged; nil: none is.
    public let acknowledgements: AcknowledgementLedger?
    private let environment: [String: String]
    private let targets: [ProbeTarget]
    private let engine: ProbeEngine

    /// `adHocProbes`: `serve`'s /probe adds targets of its own, so its
    /// engine keeps every thread however few hosts are configured.
    public init(
        config: Config, environment: [String: String] = ProcessEnvironment.current, history: HostHistoryRecorder? = nil,
        adHocProbes: Bool = false, acknowledgements: AcknowledgementLedger? = nil
    ) {
        self.config = config
        self.history = history
        self.acknowledgements = acknowledgements
        self.environment = environment
        targets = config.probeTargets(environment: environment)
        // A host of several probes makes the count unknown until its name resolves.
        let knownCount = adHocProbes || VariantPlan.isNeeded(for: config.hosts) ? nil : targets.count
        engine = ProbeEngine(concurrency: config.concurrency, expectedTargets: knownCount)
    }

    public var hosts: [HostConfig] { config.hosts }

    /// Chains served from the verified-chain cache, and verified in full.
    package var verifiedChainCounts: (hits: Int, anchored: Int, misses: Int) { engine.verifiedChainCounts }

    /// One queue for every store's recording: a recorder is used by one
    /// thread at a time, whichever poller (old or reloaded) calls it.
    private static let historyQueue = DispatchQueue(label: "pinwatch.history")

    /// Polls every host once; reports come in batches on `queue`, then
    /// `onFinish` once, after the last batch. The cycle is returned when
    /// it starts at once; with `addresses: all` it starts after the
    /// lookups, and nil is returned.
    @discardableResult
    package func startCycle(
        on queue: DispatchQueue, onReports: @escaping (Batch) -> Void, onFinish: @escaping (CycleOutcome) -> Void
    ) -> ProbeCycle? {
        let gathering: BatchGathering
        let acknowledgements = self.acknowledgements
        acknowledgements?.reload()
        // After the history: a silence acknowledges the state the store's facts decided.
        let onReports: (Batch) -> Void = { batch in
            guard let acknowledgements else { return onReports(batch) }
            let marked = acknowledgements.apply(batch.map(\.report))
            onReports(zip(batch, marked).map { (index: $0.index, report: $1) })
        }
        if let history {
            // The store's disk work stays off `queue` (the dashboard's main
            // queue): batches are recorded on one serial queue, then handed
            // on in order, the finish after the last of them.
            gathering = BatchGathering(
                queue: Self.historyQueue,
                onReports: { batch in
                    let annotated = history.record(batch.map(\.report), at: Date())
                    let delivered = zip(batch, annotated).map { (index: $0.index, report: $1) }
                    queue.async { onReports(delivered) }
                }, onFinish: { outcome in queue.async { onFinish(outcome) } })
        } else {
            gathering = BatchGathering(queue: queue, onReports: onReports, onFinish: onFinish)
        }
        let config = self.config
        if VariantPlan.isNeeded(for: config.hosts) {
            startVariantCycle(gathering: gathering)
            return nil
        }
        return engine.start(
            targets,
            onResult: { index, result in
                guard config.hosts.indices.contains(index) else { return }
                if let shortage = result.failure?.shortage { return gathering.skip(shortage) }
                gathering.add((index, Self.report(for: config.hosts[index], result: result, config: config)))
            },
            onFinish: { gathering.finish() })
    }

    private func startVariantCycle(gathering: BatchGathering) {
        let config = self.config
        let engine = self.engine
        let targets = self.targets
        VariantPlan.resolve(hosts: config.hosts, engine: engine, timeout: config.timeout) { resolved in
            let plan = VariantPlan(hosts: config.hosts, baseTargets: targets, resolved: resolved)
            let results = VariantResults(plan: plan)
            engine.start(
                plan.targets,
                onResult: { index, result in
                    guard let (host, outcomes) = results.add(target: index, result) else { return }
                    if let shortage = outcomes.lazy.compactMap(\.1.failure?.shortage).first { return gathering.skip(shortage) }
                    let report = Self.report(
                        for: config.hosts[host], outcomes: outcomes, omittedAddresses: plan.omittedAddresses[host] ?? 0,
                        config: config)
                    gathering.add((host, report))
                },
                onFinish: { gathering.finish() })
        }
    }

    /// Polls every host once and returns the reports in configuration order.
    public func runCycle() -> [HostReport] {
        if VariantPlan.isNeeded(for: config.hosts) { return runVariantCycle() }
        let results = engine.run(targets)
        let reports = zip(config.hosts, results).map { host, result in Self.report(for: host, result: result, config: config) }
        let recorded = history?.record(reports, at: Date()) ?? reports
        guard let acknowledgements else { return recorded }
        acknowledgements.reload()
        return acknowledgements.apply(recorded)
    }

    private func runVariantCycle() -> [HostReport] {
        let resolved = VariantPlan.resolveNow(hosts: config.hosts, engine: engine, timeout: config.timeout)
        let plan = VariantPlan(hosts: config.hosts, baseTargets: targets, resolved: resolved)
        let results = engine.run(plan.targets)
        let reports = config.hosts.indices.map { host in
            let range = plan.firstTargets[host]..<plan.firstTargets[host] + plan.variantCounts[host]
            let outcomes = Array(zip(plan.owners[range].map(\.variant), results[range]))
            return Self.report(
                for: config.hosts[host], outcomes: outcomes, omittedAddresses: plan.omittedAddresses[host] ?? 0, config: config)
        }
        return history?.record(reports, at: Date()) ?? reports
    }

    /// A host of several probes (`addresses: all`, `key_types:`): each
    /// probe judged as the host, then folded into the worst of them.
    static func report(
        for host: HostConfig, outcomes: [(ProbeVariant, ProbeResult)], omittedAddresses: Int, config: Config
    ) -> HostReport {
        let judged = outcomes.map { (variant: $0.0, report: report(for: host, result: $0.1, config: config)) }
        let severalProbes = host.probesEveryAddress || !host.keyTypes.isEmpty
        guard severalProbes, let folded = VariantFold.fold(judged, omittedAddresses: omittedAddresses) else {
            return judged.first?.report
                ?? report(
                    for: host, result: .failed(ProbeFailure(kind: .timeout, message: "probe did not finish"), elapsed: 0), config: config)
        }
        return folded
    }

    /// One host that is not (necessarily) configured, probed now with this
    /// poller's engine, proxy rules and timeout: `serve`'s `/probe`.
    public func probeOnce(_ host: HostConfig, completion: @escaping @Sendable (HostReport) -> Void) {
        var single = config
        single.hosts = [host]
        let config = self.config
        let targets = single.probeTargets(environment: environment)
        guard VariantPlan.isNeeded(for: [host]) else {
            engine.start(
                targets, onResult: { _, result in completion(Self.report(for: host, result: result, config: config)) },
                onFinish: {})
            return
        }
        // A configured host of several probes gets the verdict its poll gets.
        let engine = self.engine
        VariantPlan.resolve(hosts: [host], engine: engine, timeout: config.timeout) { resolved in
            let plan = VariantPlan(hosts: [host], baseTargets: targets, resolved: resolved)
            let results = VariantResults(plan: plan)
            engine.start(
                plan.targets,
                onResult: { index, result in
                    guard let (_, outcomes) = results.add(target: index, result) else { return }
                    completion(
                        Self.report(for: host, outcomes: outcomes, omittedAddresses: plan.omittedAddresses[0] ?? 0, config: config))
                }, onFinish: {})
        }
    }

    /// The verdict with each client release's view folded in: what every
    /// probe's result gets, and `preflight`'s chain (`ServedChain`).
    public static func report(for host: HostConfig, result: ProbeResult, config: Config) -> HostReport {
        let now = Date()
        let report = Verdict.report(
            for: host, result: result, now: now, warnDays: config.warnDays, criticalDays: config.criticalDays,
            catalogue: config.catalogue, renewShare: config.renewShare)
        return ClientVerdicts.apply(
            to: report, clients: config.clients, now: now, warnDays: config.warnDays, criticalDays: config.criticalDays,
            catalogue: config.catalogue, renewShare: config.renewShare)
    }
}

/// Reports gathered between two turns of the caller's queue.
private final class BatchGathering: @unchecked Sendable {
    private let lock = NSLock()
    private var pending: HostPoller.Batch = []
    private var finished = false
    private var drainScheduled = false
    private var outcome = HostPoller.CycleOutcome()
    private let queue: DispatchQueue
    private let onReports: (HostPoller.Batch) -> Void
    private let onFinish: (HostPoller.CycleOutcome) -> Void

    init(
        queue: DispatchQueue, onReports: @escaping (HostPoller.Batch) -> Void,
        onFinish: @escaping (HostPoller.CycleOutcome) -> Void
    ) {
        self.queue = queue
        self.onReports = onReports
        self.onFinish = onFinish
    }

    func add(_ entry: (index: Int, report: HostReport)) {
        lock.lock()
        pending.append(entry)
        scheduleDrainLocked()
        lock.unlock()
    }

    func skip(_ shortage: LocalResourceShortage) {
        lock.lock()
        outcome.shortages[shortage, default: 0] += 1
        lock.unlock()
    }

    /// The engine delivers results and the finish in order on one thread,
    /// so every result is pending by the time this runs.
    func finish() {
        lock.lock()
        finished = true
        scheduleDrainLocked()
        lock.unlock()
    }

    private func scheduleDrainLocked() {
        guard !drainScheduled else { return }
        drainScheduled = true
        queue.async { self.drain() }
    }

    private func drain() {
        lock.lock()
        let batch = pending
        pending.removeAll(keepingCapacity: true)
        let done = finished
        finished = false
        drainScheduled = false
        let ended = outcome
        lock.unlock()
        if !batch.isEmpty { onReports(batch) }
        if done { onFinish(ended) }
    }
}
