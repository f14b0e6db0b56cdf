import Dispatch
import Foundation
import Logging
import PinwatchCore
import PinwatchProbe

/// `pinwatch serve`: polls on `interval` through the same pipeline as the
/// dashboard, keeps the latest completed cycle as Prometheus text, runs the
/// hooks on severity transitions, and takes a new configuration on reload.
///
/// Scrapes never probe: they read the text the last cycle left. Every
/// other member is touched only on `queue`. `@unchecked Sendable` for that
/// reason; `published` has its own lock.
public final class Exporter: @unchecked Sendable {
    private let queue = DispatchQueue(label: "pinwatch.exporter")
    private let environment: [String: String]
    private let version: String
    private let logger: Logger
    private let published = PublishedMetrics()

    /// The running configuration is the poller's own.
    private var poller: HostPoller
    /// One for the life of the process: its cap holds across reloads.
    private let hooks: HookRunner
    /// `hooks.currentCounts` as last logged.
    private var loggedHookCounts = HookRunner.Counts()
    private var pendingConfig: Config?
    private var timer: DispatchSourceTimer?
    private var timerInterval: TimeInterval = 0
    /// When the timer fires next, as last planned.
    private var nextTick = DispatchTime.now()
    private var cycleRunning = false
    /// A tick came while a cycle ran: the next starts as that one ends.
    private var cycleDue = false
    /// Cycles outlasting the interval are said once, not at every tick.
    private var overrunLogged = false
    private var cycleStartedAt = Date()
    private var completedCycles = 0
    /// The last cycle that completed without a local shortage: a failed
    /// cycle leaves it, so the staleness alert fires if cycles keep failing.
    private var lastCompleted: (finishedAt: Date, duration: TimeInterval)?
    /// Failed cycles since start, by what ran out.
    private var cycleFailures: [LocalResourceShortage: Int] = [:]
    private var cycleReports: [HostReport?] = []
    /// The latest report per host identity, across reloads: what a new
    /// report is compared with to find a severity transition.
    private var latest: [String: HostReport] = [:]
    private let adHocProbes = InFlightLimit(maximum: 16)
    private let renderer = PrometheusRenderer()

    /// Kept across reloads: records every cycle.
    private let history: HostHistoryRecorder?
    private var historyNotices = HistoryWriteNotices()
    private var chainChanges = ChainChangeCounter(started: Date())

    public init(config: Config, environment: [String: String], version: String, logger: Logger, history: HostHistoryRecorder? = nil) {
        self.environment = environment
        self.version = version
        self.logger = logger
        self.history = history
        poller = HostPoller(config: config, environment: environment, history: history, adHocProbes: true)
        hooks = Self.makeHookRunner(config.hooks, environment: environment, logger: logger)
    }

    /// Ready once the first cycle has completed (`/-/ready`).
    public var isReady: Bool { published.isReady }

    /// The last completed cycle as Prometheus text, with a number that
    /// changes whenever the text does (so a server can keep its own copy).
    public var metrics: (text: Data, generation: Int) { published.metrics }

    public func startPolling() {
        queue.async { [self] in startTimer(interval: poller.config.interval) }
    }

    /// Takes `config` for the next cycle; hosts that stay keep their state.
    public func reload(_ newConfig: Config) {
        queue.async { [self] in
            pendingConfig = newConfig
            if !cycleRunning { applyPendingConfig() }
            retime(interval: newConfig.interval)
            logger.info("configuration reloaded", metadata: ["hosts": "\(newConfig.hosts.count)", "applies": "next cycle"])
        }
    }

    /// Probes one target now, with the configured pins for it or a named
    /// pinset: `/probe`. At most 16 at once; the rest are turned away.
    public func probe(_ query: ProbeQuery) async -> Result<Data, ProbeQueryError> {
        let poller = await withCheckedContinuation { continuation in queue.async { continuation.resume(returning: self.poller) } }
        var host: HostConfig
        switch query.host(in: poller.config) {
        case .failure(let problem): return .failure(problem)
        case .success(let found): host = found
        }
        guard adHocProbes.enter() else { return .failure(ProbeQueryError("too many probes in flight; try again")) }
        defer { adHocProbes.leave() }
        if let networks = query.requiredNetworks(in: poller.config) {
            let dialled = host.connectAddress ?? host.host
            let port = host.port
            let checked = await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    continuation.resume(returning: TargetAddressCheck.allowedAddress(host: dialled, port: port, networks: networks))
                }
            }
            switch checked {
            case .failure(let problem): return .failure(problem)
            case .success(let address): host.connectAddress = address
            }
        }
        let report = await withCheckedContinuation { (continuation: CheckedContinuation<HostReport, Never>) in
            poller.probeOnce(host) { continuation.resume(returning: $0) }
        }
        var text = PrometheusExposition.render([report], cycle: nil, version: version)
        // blackbox_exporter's convention, as its users read it: healthy or not.
        text += "# HELP pinwatch_probe_success 1 when a chain was obtained and the host is not critical, else 0.\n"
        text += "# TYPE pinwatch_probe_success gauge\npinwatch_probe_success \(PrometheusExposition.probeSuccess(report) ? 1 : 0)\n"
        return .success(Data(text.utf8))
    }

    // MARK: Cycles (queue only)

    /// One timer for the life of the exporter; the first cycle now.
    private func startTimer(interval: TimeInterval) {
        guard timer == nil else { return }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timerInterval = interval
        nextTick = .now()
        timer.schedule(deadline: nextTick, repeating: interval, leeway: .milliseconds(100))
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            nextTick = .now() + timerInterval
            startCycle()
        }
        timer.resume()
        self.timer = timer
    }

    /// A new interval counts from the tick already planned: a reload never
    /// starts a cycle itself, however many come (a SIGHUP storm used to
    /// start one per reload that changed the interval).
    private func retime(interval: TimeInterval) {
        guard let timer, interval != timerInterval else { return }
        timerInterval = interval
        timer.schedule(deadline: nextTick, repeating: interval, leeway: .milliseconds(100))
    }

    private func startCycle() {
        guard !cycleRunning else {
            cycleDue = true
            if !overrunLogged {
                overrunLogged = true
                logger.warning(
                    "a cycle outlasted the interval: each such cycle is followed at once by the next, so the interval is effectively longer",
                    metadata: ["interval": "\(ConfigDuration.describe(poller.config.interval))"])
            }
            return
        }
        cycleRunning = true
        cycleStartedAt = Date()
        cycleReports = Array(repeating: nil, count: poller.hosts.count)
        poller.startCycle(
            on: queue,
            onReports: { [weak self] batch in self?.receive(batch) },
            onFinish: { [weak self] outcome in self?.finishCycle(outcome) })
    }

    private func receive(_ batch: HostPoller.Batch) {
        let now = Date()
        var transitions: [SeverityTransition] = []
        for (index, report) in batch where cycleReports.indices.contains(index) {
            cycleReports[index] = report
            chainChanges.observe(report)
            let key = report.config.identityKey
            if let transition = SeverityTransition.between(latest[key], report, at: now) {
                transitions.append(transition)
                logger.notice(
                    "severity changed",
                    metadata: [
                        "host": "\(report.config.displayName)", "from": "\(latest[key]?.severity.rawValue ?? "none")",
                        "to": "\(report.severity.rawValue)", "status": "\(report.status.rawValue)", "reason": "\(report.reason)",
                    ])
            }
            latest[key] = report
        }
        hooks.run(for: transitions)
    }

    private func finishCycle(_ outcome: HostPoller.CycleOutcome) {
        cycleRunning = false
        let finished = Date()
        if outcome.failed {
            for shortage in outcome.shortages.keys { cycleFailures[shortage, default: 0] += 1 }
            logger.error(
                "cycle failed: pinwatch itself ran out of resources; hosts it could not probe keep their previous verdicts",
                metadata: [
                    "reason": "\(outcome.shortages.keys.map(\.rawValue).sorted().joined(separator: ","))",
                    "hosts_not_probed": "\(outcome.shortages.values.reduce(0, +))",
                ])
        } else {
            completedCycles += 1
            lastCompleted = (finished, finished.timeIntervalSince(cycleStartedAt))
        }
        // A host left without a report this cycle keeps its latest one.
        let reports = poller.hosts.indices.compactMap { index in
            cycleReports.indices.contains(index) ? cycleReports[index] ?? latest[poller.hosts[index].identityKey] : nil
        }
        let shown = lastCompleted ?? (finished, finished.timeIntervalSince(cycleStartedAt))
        let cycle = PrometheusExposition.Cycle(
            finishedAt: shown.finishedAt, duration: shown.duration, completedCycles: completedCycles,
            interval: poller.config.interval, failures: cycleFailures)
        var text = renderer.render(reports, cycle: cycle, version: version)
        if let history {
            let health = history.writeHealth
            text += PrometheusExposition.historyWrites(health).utf8
            text += chainChanges.exposition(reports).utf8
            logHistoryNotices(health, at: finished)
        }
        published.publish(Data(text))
        var counts: Logger.Metadata = ["hosts": "\(reports.count)", "duration_ms": "\(Int(cycle.duration * 1000))"]
        for severity in HostSeverity.worstFirst {
            counts[severity.rawValue] = "\(reports.filter { $0.severity == severity }.count)"
        }
        logger.info("cycle finished", metadata: counts)
        logHookQueue()
        applyPendingConfig()
        if cycleDue {
            cycleDue = false
            startCycle()
        }
    }

    /// At most once a cycle, and only when something was merged, dropped
    /// or could not start since the last time.
    private func logHookQueue() {
        let counts = hooks.currentCounts
        let last = loggedHookCounts
        guard counts.merged != last.merged || counts.dropped != last.dropped || counts.failedStarts != last.failedStarts
        else { return }
        loggedHookCounts = counts
        logger.warning(
            "hook runs merged, dropped or not started",
            metadata: [
                "merged": "\(counts.merged - last.merged)", "dropped": "\(counts.dropped - last.dropped)",
                "failed_starts": "\(counts.failedStarts - last.failedStarts)", "waiting": "\(counts.waiting)",
                "running": "\(counts.running)",
            ])
    }

    /// At exit: hooks still running are killed, and what never ran is said.
    public func stopHooks() -> HookRunner.Counts {
        hooks.stop()
    }

    private func logHistoryNotices(_ health: HistoryWriteHealth, at now: Date) {
        for notice in historyNotices.notices(for: health, at: now) {
            switch notice {
            case .failing(let message, let failures):
                logger.error(
                    "history writes failing; retrying every cycle",
                    metadata: ["error": "\(message)", "failed_writes": "\(failures)"])
            case .resumed(let failures):
                logger.notice("history recording resumed", metadata: ["failed_writes": "\(failures)"])
            }
        }
    }

    private func applyPendingConfig() {
        guard let newConfig = pendingConfig else { return }
        pendingConfig = nil
        poller = HostPoller(config: newConfig, environment: environment, history: history, adHocProbes: true)
        hooks.replaceHooks(newConfig.hooks)
        let kept = Set(newConfig.hosts.map(\.identityKey))
        latest = latest.filter { kept.contains($0.key) }
    }

    private static func makeHookRunner(_ hooks: [HookCommand], environment: [String: String], logger: Logger) -> HookRunner {
        HookRunner(hooks: hooks, environment: environment) { report in
            let metadata: Logger.Metadata = [
                "hook": "\(report.command)", "host": "\(report.host)", "attempt": "\(report.attempt)",
                "outcome": "\(report.outcome)", "stderr": "\(report.stderr)",
            ]
            if report.succeeded {
                logger.info("hook ran", metadata: metadata)
            } else {
                logger.warning("hook failed", metadata: metadata)
            }
        }
    }
}

/// The text scrapes read, swapped whole at the end of each cycle.
private final class PublishedMetrics: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    private var generation = 0
    private var ready = false

    func publish(_ metrics: Data) {
        lock.lock()
        data = metrics
        generation += 1
        ready = true
        lock.unlock()
    }

    var metrics: (text: Data, generation: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (data, generation)
    }

    var isReady: Bool {
        lock.lock()
        defer { lock.unlock() }
        return ready
    }
}

/// A counter with a ceiling, for work that may be turned away.
final class InFlightLimit: @unchecked Sendable {
    private let lock = NSLock()
    private var current = 0
    private let maximum: Int

    init(maximum: Int) {
        self.maximum = maximum
    }

    func enter() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard current < maximum else { return false }
        current += 1
        return true
    }

    func leave() {
        lock.lock()
        current -= 1
        lock.unlock()
    }
}
