import Dispatch
import Foundation
import PinwatchCore
import PinwatchProbe
import PinwatchSystem

/// The one poll pipeline: configured hosts → a plan of probes (one for a
/// plain host) → engine → the finishing steps (`ReportFinishing`) →
/// reports, used by every command that polls (`snapshot`, `check`,
/// `inspect`, `watch`, `serve`, `demo`); a one-shot command waits for the
/// same cycle a long-running one is told of.
///
/// Reports are finished on one serial queue and reach the caller's queue
/// in batches: one block per burst of results, not one per host, so a
/// 10,000-host cycle does not flood the main queue.
///
/// `@unchecked Sendable`: the configuration is immutable; what a cycle
/// gathers is guarded by locks of its own.
package final class HostPoller: @unchecked Sendable {
    package typealias Batch = [(index: Int, report: HostReport)]

    /// How a cycle ended. A probe that failed for want of a local resource
    /// (descriptors, memory) says nothing about its host: that host gets no
    /// report this cycle, so its previous verdict stands and no transition
    /// fires, and the cycle counts as failed.
    package struct CycleOutcome: Sendable {
        /// Hosts left without a report, by what ran out.
        package var shortages: [LocalResourceShortage: Int] = [:]

        package init(shortages: [LocalResourceShortage: Int] = [:]) {
            self.shortages = shortages
        }

        package var failed: Bool { !shortages.isEmpty }
    }

    package let config: Config
    /// Records each cycle and adds history to its reports; nil with
    /// `state: off`.
    package let history: HostHistoryRecorder?
    /// Marks the reports whose problem is acknowledged; nil: none is.
    package let acknowledgements: AcknowledgementLedger?
    /// The Certificate Transparency logs followed for `ct:`, stepped once
    /// at each long-running cycle's start; nil without it.
    package let ct: CTFollowing?
    private let environment: [String: String]
    private let targets: [ProbeTarget]
    private let engine: ProbeEngine
    private let finishing: ReportFinishing
    private let revocation: RevocationLookup
    private let now: @Sendable () -> Date
    private let windows = CycleCount()

    /// `adHocProbes`: `serve`'s /probe adds targets of its own, so its
    /// engine keeps every thread however few hosts are configured. `now`:
    /// the clock reports are judged and recorded by. `crls`: the CRLs
    /// chains are looked up in, shared by every poller of the process.
    package convenience init(
        config: Config, environment: [String: String] = ProcessEnvironment.current, history: HostHistoryRecorder? = nil,
        adHocProbes: Bool = false, acknowledgements: AcknowledgementLedger? = nil, ct: CTFollowing? = nil,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.init(
            config: config, environment: environment, history: history, adHocProbes: adHocProbes,
            acknowledgements: acknowledgements, ct: ct, now: now, crls: .shared)
    }

    package init(
        config: Config, environment: [String: String] = ProcessEnvironment.current, history: HostHistoryRecorder? = nil,
        adHocProbes: Bool = false, acknowledgements: AcknowledgementLedger? = nil, ct: CTFollowing? = nil,
        now: @escaping @Sendable () -> Date = { Date() }, crls: CRLCache
    ) {
        self.config = config
        self.history = history
        self.ct = ct
        self.acknowledgements = acknowledgements
        self.environment = environment
        self.now = now
        targets = config.probeTargets(environment: environment)
        // A host of every address makes the count unknown until its name resolves.
        engine = ProbeEngine(
            concurrency: config.concurrency, expectedTargets: adHocProbes ? nil : ProbePlan.knownCount(for: config.hosts))
        finishing = ReportFinishing(config: config, history: history, acknowledgements: acknowledgements, ct: ct, now: now)
        revocation = RevocationLookup(cache: crls, timeout: config.timeout, proxy: config.proxy, environment: environment)
    }

    package var hosts: [HostConfig] { config.hosts }

    /// Chains served from the verified-chain cache, and verified in full.
    package var verifiedChainCounts: (hits: Int, anchored: Int, misses: Int) { engine.verifiedChainCounts }

    /// One queue for every cycle's finishing steps: a history recorder is
    /// used by one thread at a time, whichever poller (old or reloaded)
    /// calls it, and the store's disk work stays off the caller's queue
    /// (the dashboard's main queue).
    private static let finishingQueue = DispatchQueue(label: "pinwatch.finishing")
    /// Everything that runs on the finishing queue goes through this, in
    /// the order it was handed over (QueueWakeup says why not `async`).
    private static let finishingWakeup = QueueWakeup(queue: finishingQueue)

    /// Polls every host once; reports come in batches on `queue`, then
    /// `onFinish` once, after the last batch. `oneShot`: a cycle nobody
    /// watches grow (`check`, `snapshot`) is one batch, finished after the
    /// last probe (no queue wake-ups per result), and a host whose probe
    /// lacked a local resource is reported as the error it got (there is
    /// no earlier verdict to keep).
    @discardableResult
    package func startCycle(
        on queue: DispatchQueue, oneShot: Bool = false, onReports: @escaping (Batch) -> Void,
        onFinish: @escaping (CycleOutcome) -> Void
    ) -> PollCycle {
        let gathering = BatchGathering(
            finishing: finishing, queue: queue, onReports: onReports, onFinish: onFinish, wakeup: Self.finishingWakeup,
            wholeCycle: oneShot)
        if let acknowledgements {
            // Before this cycle's first batch, on the queue that finishes it.
            Self.finishingWakeup.run { acknowledgements.reload() }
        }
        // A one-shot command steps the logs itself, waited for, before
        // its cycle; a long-running one's step runs beside the probes and
        // its findings reach the reports finished after it.
        if !oneShot { ct?.step() }
        let cycle = PollCycle()
        probe(
            config.hosts, targets: targets, window: windows.next(startingAt: firstWindow()), cycle: cycle,
            onHost: { host in
                if !oneShot, let shortage = host.probes.lazy.compactMap(\.result.failure?.shortage).first {
                    return gathering.skip(shortage)
                }
                gathering.add(host)
            }, onFinish: { gathering.finish() })
        return cycle
    }

    /// Polls every host once and returns the reports in configuration
    /// order: the same cycle `watch` and `serve` run, waited for.
    package func runCycle() -> [HostReport] {
        let collected = CollectedReports(count: config.hosts.count)
        let done = DispatchSemaphore(value: 0)
        let cycle = startCycle(
            on: DispatchQueue(label: "pinwatch.one-shot"), oneShot: true, onReports: { collected.add($0) },
            onFinish: { _ in done.signal() })
        // Every probe and lookup ends by its own deadline; this bound (all
        // of them back to back, plus slack) only guards against a bug there.
        let probes = config.hosts.reduce(0) { $0 + max(1, $1.keyTypes.count) * ($1.probesEveryAddress ? 64 : 1) }
        let bound = 30 + max(0, config.timeout) * Double(probes + 1)
        if done.wait(timeout: .now() + bound) == .timedOut {
            cycle.cancel()
            _ = done.wait(timeout: .now() + 5)
        }
        let date = now()
        return collected.reports { ReportFinishing.unfinished(config.hosts[$0], config: config, at: date) }
    }

    /// The first cycle's window of `addresses: all`'s addresses, from the
    /// clock: one-shot commands run on an interval then move on too.
    private func firstWindow() -> Int {
        Int((now().timeIntervalSince1970 / max(1, config.interval)).rounded(.down))
    }

    /// The one probe path: lookups for `addresses: all` (none for a plain
    /// host, which is a plan of one probe), then every planned probe, and
    /// each host handed on once its last probe is in.
    private func probe(
        _ hosts: [HostConfig], targets: [ProbeTarget], window: Int, cycle: PollCycle,
        onHost: @escaping @Sendable (FinishingHost) -> Void, onFinish: @escaping @Sendable () -> Void
    ) {
        let engine = self.engine
        let revocation = self.revocation
        ProbePlan.resolve(hosts: hosts, engine: engine, timeout: config.timeout) { resolved in
            let plan = ProbePlan(hosts: hosts, baseTargets: targets, resolved: resolved, window: window)
            let results = VariantResults(plan: plan)
            // A result waiting for its CRLs is still the cycle's: the finish
            // waits for it (no longer than the lookup's own bound).
            let lookups = PendingLookups(onFinish: onFinish)
            // Results are only stored here; the steps run on the finishing queue.
            cycle.started(
                engine.start(
                    plan.targets, deliversInline: true,
                    onResult: { index, result in
                        lookups.begin()
                        let checks = plan.targets.indices.contains(index) && plan.targets[index].checksRevocation
                        revocation.complete(result, checks: checks) { result in
                            if let (host, outcomes) = results.add(target: index, result) {
                                onHost(
                                    FinishingHost(
                                        index: host, host: hosts[host], outcomes: outcomes, notProbed: plan.notProbed[host] ?? []))
                            }
                            lookups.end()
                        }
                    },
                    onFinish: { lookups.engineFinished() }))
        }
    }

    /// One host that is not (necessarily) configured, probed now with this
    /// poller's engine, proxy rules and timeout: `serve`'s `/probe`. It
    /// gets the verdict a configured host's cycle gets, without the store
    /// or acknowledgements: an ad hoc probe is nobody's cycle.
    package func probeOnce(_ host: HostConfig, completion: @escaping @Sendable (HostReport) -> Void) {
        var single = config
        single.hosts = [host]
        var judging = finishing
        judging.steps = ReportFinishing.judging
        let finishing = judging
        probe(
            [host], targets: single.probeTargets(environment: environment), window: firstWindow(), cycle: PollCycle(),
            onHost: { host in Self.finishingWakeup.run { completion(finishing.finish([host])[0]) } }, onFinish: {})
    }

    /// The verdict with each client release's view folded in, as a cycle
    /// makes it: `preflight`'s chain nobody served yet (`ServedChain`).
    package static func report(for host: HostConfig, result: ProbeResult, config: Config) -> HostReport {
        let finishing = ReportFinishing(
            config: config, history: nil, acknowledgements: nil, now: { Date() }, steps: ReportFinishing.oneChain)
        return finishing.finish([FinishingHost(index: 0, host: host, outcomes: [(ProbeVariant(), result)])])[0]
    }
}

/// A started cycle, which the probes may not have reached yet (lookups
/// first): cancelling it before they start cancels them as they start.
package final class PollCycle: @unchecked Sendable {
    private let lock = NSLock()
    private var probes: ProbeCycle?
    private var cancelled = false

    func started(_ cycle: ProbeCycle) {
        lock.lock()
        probes = cycle
        let cancel = cancelled
        lock.unlock()
        if cancel { cycle.cancel() }
    }

    package func cancel() {
        lock.lock()
        cancelled = true
        let cycle = probes
        lock.unlock()
        cycle?.cancel()
    }
}

/// The results still waiting for their revocation lookups: the cycle's
/// finish is told once the engine has finished and none is left.
private final class PendingLookups: @unchecked Sendable {
    private let lock = NSLock()
    private var pending = 0
    private var engineDone = false
    private var told = false
    private let onFinish: @Sendable () -> Void

    init(onFinish: @escaping @Sendable () -> Void) { self.onFinish = onFinish }

    func begin() {
        lock.lock()
        pending += 1
        lock.unlock()
    }

    func end() {
        lock.lock()
        pending -= 1
        finishIfDueLocked()
    }

    func engineFinished() {
        lock.lock()
        engineDone = true
        finishIfDueLocked()
    }

    private func finishIfDueLocked() {
        let due = engineDone && pending == 0 && !told
        if due { told = true }
        lock.unlock()
        if due { onFinish() }
    }
}

/// Which window of addresses the next cycle probes.
private final class CycleCount: @unchecked Sendable {
    private let lock = NSLock()
    private var next: Int?

    func next(startingAt first: Int) -> Int {
        lock.lock()
        defer { lock.unlock() }
        let value = next ?? first
        next = value &+ 1
        return value
    }
}

/// A one-shot cycle's reports by host index.
private final class CollectedReports: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [HostReport?]

    init(count: Int) { slots = Array(repeating: nil, count: count) }

    func add(_ batch: HostPoller.Batch) {
        lock.lock()
        for entry in batch where slots.indices.contains(entry.index) { slots[entry.index] = entry.report }
        lock.unlock()
    }

    func reports(filling missing: (Int) -> HostReport) -> [HostReport] {
        lock.lock()
        defer { lock.unlock() }
        return slots.indices.map { slots[$0] ?? missing($0) }
    }
}

/// Hosts gathered between two turns of the finishing queue, finished
/// there as one batch (every step, in order), then handed to the caller's
/// queue in order, the finish after the last batch.
private final class BatchGathering: @unchecked Sendable {
    private let lock = NSLock()
    private var pending: [FinishingHost] = []
    private var finished = false
    private var drainScheduled = false
    private var outcome = HostPoller.CycleOutcome()
    /// Let go once the cycle is finished: the engine may keep the cycle
    /// (and so this) a while, and a one-shot command's history store must
    /// close, its write-ahead log folded in, when the command lets go of it.
    private var finishing: ReportFinishing?
    private let queue: DispatchQueue
    private let wakeup: QueueWakeup
    /// One batch at the finish instead of one per burst of results.
    private let wholeCycle: Bool
    private let onReports: (HostPoller.Batch) -> Void
    private let onFinish: (HostPoller.CycleOutcome) -> Void

    init(
        finishing: ReportFinishing, queue: DispatchQueue, onReports: @escaping (HostPoller.Batch) -> Void,
        onFinish: @escaping (HostPoller.CycleOutcome) -> Void, wakeup: QueueWakeup, wholeCycle: Bool
    ) {
        self.wholeCycle = wholeCycle
        self.finishing = finishing
        self.queue = queue
        self.wakeup = wakeup
        self.onReports = onReports
        self.onFinish = onFinish
    }

    func add(_ host: FinishingHost) {
        lock.lock()
        pending.append(host)
        if !wholeCycle { scheduleDrainLocked() }
        lock.unlock()
    }

    func skip(_ shortage: LocalResourceShortage) {
        lock.lock()
        outcome.shortages[shortage, default: 0] += 1
        lock.unlock()
    }

    /// The engine hands over every result before it calls the finish, so
    /// every result is pending by the time this runs.
    func finish() {
        lock.lock()
        finished = true
        scheduleDrainLocked()
        lock.unlock()
    }

    private func scheduleDrainLocked() {
        guard !drainScheduled else { return }
        drainScheduled = true
        wakeup.run { self.drain() }
    }

    private static func finish(_ batch: [FinishingHost], through finishing: ReportFinishing) -> HostPoller.Batch {
        zip(batch, finishing.finish(batch)).map { (index: $0.index, report: $1) }
    }

    private func drain() {
        lock.lock()
        let batch = pending
        pending.removeAll(keepingCapacity: true)
        let done = finished
        finished = false
        drainScheduled = false
        let ended = outcome
        var finishing = self.finishing
        if done { self.finishing = nil }
        lock.unlock()
        let onReports = self.onReports
        let onFinish = self.onFinish
        if !batch.isEmpty, let steps = finishing {
            let delivered = Self.finish(batch, through: steps)
            queue.async { onReports(delivered) }
        }
        // Before the finish is told: a one-shot command may exit as soon
        // as it is, and its store must not be held here then.
        finishing = nil
        if done { queue.async { onFinish(ended) } }
    }
}
