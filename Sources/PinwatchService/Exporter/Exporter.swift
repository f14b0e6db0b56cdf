import Dispatch
import Foundation
import Logging
import PinwatchCore
import PinwatchMonitor
import PinwatchProbe

/// `pinwatch serve`: publishes what the `Monitor` polls (the same loop as
/// the dashboard's) as Prometheus text, logs its events, and answers
/// `/probe` with the running configuration's engine.
///
/// Scrapes never probe: they read the text the last cycle left, rendered
/// once per cycle on `renderQueue`, so neither a render nor a scrape holds
/// the monitor's queue (a 10,000-host render takes longer than a tick
/// can wait). `renderer` is touched only on `renderQueue`; every other
/// member only on `queue`, the monitor's. `@unchecked Sendable` for that
/// reason; `published` has its own lock.
package final class Exporter: @unchecked Sendable {
    private let queue = DispatchQueue(label: "pinwatch.exporter")
    private let renderQueue = DispatchQueue(label: "pinwatch.exporter.render")
    private let version: String
    private let logger: Logger
    private let published = PublishedMetrics()
    /// Set once, at the end of `init` (its events call back into `self`).
    private var monitor: Monitor<HostPoller>!
    /// One for the life of the process: its cap holds across reloads.
    private let hooks: HookRunner
    private var completedCycles = 0
    /// The last cycle that completed without a local shortage: a failed
    /// cycle leaves it, so the staleness alert fires if cycles keep failing.
    private var lastCompleted: (finishedAt: Date, duration: TimeInterval)?
    /// Failed cycles since start, by what ran out.
    private var cycleFailures: [LocalResourceShortage: Int] = [:]
    private let adHocProbes = InFlightLimit(maximum: 16)
    private let renderer = PrometheusRenderer()

    /// Kept across reloads: records every cycle.
    private let history: HostHistoryRecorder?
    private var historyNotices = HistoryWriteNotices()
    private var chainChanges = ChainChangeCounter(started: Date())
    /// `report_uri:`'s endpoint; nil when the configuration has none.
    package let clientReports: ClientReportIntake?
    /// `ct:`'s logs, followed across reloads; nil without it.
    private let ct: CTFollowing?

    /// `readConfig` reads the configuration again (SIGHUP, a changed client
    /// pin file); nil leaves the first one running.
    package init(
        config: Config, environment: [String: String], version: String, logger: Logger, history: HostHistoryRecorder? = nil,
        readConfig: Monitor<HostPoller>.ConfigReader? = nil, acknowledgements: AcknowledgementLedger? = nil,
        clientReports: ClientReportIntake? = nil, ct: CTFollowing? = nil
    ) {
        self.ct = ct
        self.version = version
        self.logger = logger
        self.history = history
        self.clientReports = clientReports
        clientReports?.configure(config)
        hooks = Self.makeHookRunner(config.hooks, environment: environment, logger: logger)
        monitor = Monitor(
            config: config, queue: queue,
            makePoller: { config in
                ct?.use(config)
                return HostPoller(
                    config: config, environment: environment, history: history, adHocProbes: true, acknowledgements: acknowledgements,
                    ct: ct)
            }, hooks: hooks,
            readConfig: readConfig, onEvent: { [unowned self] in handle($0) })
    }

    /// Ready once the first cycle has completed (`/-/ready`).
    package var isReady: Bool { published.isReady }

    /// The last completed cycle as Prometheus text, with a number that
    /// changes whenever the text does (so a server can keep its own copy).
    package var metrics: (text: Data, generation: Int) { published.metrics }

    /// `prepare` sees each render's text before any scrape can (on the
    /// render queue): a server makes its copies and compressed form there,
    /// so a scrape only writes what is made. Set before `startPolling`.
    package func whenPublished(_ prepare: @escaping @Sendable (_ text: Data, _ generation: Int) -> Void) {
        published.prepare = prepare
    }

    package func startPolling() {
        queue.async { [self] in monitor.start() }
    }

    /// Reads the configuration again for the next cycle; hosts that stay
    /// keep their state, and an invalid one is refused and logged.
    package func requestReload() {
        queue.async { [self] in monitor.requestReload() }
    }

    /// Probes one target now, with the configured pins for it or a named
    /// pinset: `/probe`. At most 16 at once; the rest are turned away.
    package func probe(_ query: ProbeQuery) async -> Result<Data, ProbeQueryError> {
        let poller = await withCheckedContinuation { continuation in queue.async { continuation.resume(returning: self.monitor.poller) } }
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
        return .success(
            Data(
                PrometheusExposition.probeAnswer(
                    report, version: version, vantage: poller.config.vantage, deprecatedSeries: poller.config.deprecatedSeries)))
    }

    /// At exit: hooks still running are killed, and what never ran is said.
    package func stopHooks() -> HookRunner.Counts {
        hooks.stop()
    }

    // MARK: The monitor's events (queue only)

    private func handle(_ event: MonitorEvent) {
        switch event {
        case .reports(let batch, let transitions):
            for entry in batch { chainChanges.observe(entry.report) }
            for transition in transitions { logTransition(transition) }
        case .cycleFinished(let end):
            publish(end)
        case .cycleOverran(let interval, _):
            logger.warning(
                "a cycle outlasted the interval: each such cycle is followed at once by the next, so the interval is effectively longer",
                metadata: ["interval": "\(ConfigDuration.describe(interval))"])
        case .reloadRead(let config, let cause):
            if cause == .clientFilesChanged { logger.info("a client pin file changed") }
            logger.info("configuration reloaded", metadata: ["hosts": "\(config.hosts.count)", "applies": "next cycle"])
        case .reloadFailed(let error, let cause):
            let lines = (error as? ConfigFile.Failure)?.lines ?? ["\(error)"]
            let what =
                cause == .clientFilesChanged
                ? "a client pin file changed, reload refused: the old configuration keeps running"
                : "reload refused: the old configuration keeps running"
            logger.error("\(what)", metadata: ["problems": "\(lines.joined(separator: "; "))"])
        case .hooksBehind(let since):
            logger.warning(
                "hook runs merged, dropped or not started",
                metadata: [
                    "merged": "\(since.merged)", "dropped": "\(since.dropped)", "failed_starts": "\(since.failedStarts)",
                    "waiting": "\(since.waiting)", "running": "\(since.running)",
                ])
        case .reloadApplied(let config):
            clientReports?.configure(config)
        case .cycleStarted, .nextTick:
            break
        }
    }

    /// With the SNI and the connect address where the host's series carry
    /// them: two backends behind one name are two entries, told apart here
    /// as in the metrics.
    private func logTransition(_ transition: SeverityTransition) {
        let report = transition.report
        var metadata: Logger.Metadata = [
            "host": "\(report.config.displayName)", "from": "\(transition.previous?.severity.rawValue ?? "none")",
            "to": "\(report.severity.rawValue)", "status": "\(report.status.rawValue)", "reason": "\(report.reason)",
        ]
        if report.config.serverName != report.config.host { metadata["sni"] = "\(report.config.serverName)" }
        if let address = report.config.connectAddress { metadata["address"] = "\(address)" }
        logger.notice("severity changed", metadata: metadata)
    }

    private func publish(_ end: MonitorEvent.CycleEnd) {
        let duration = end.finishedAt.timeIntervalSince(end.startedAt)
        if end.outcome.failed {
            for shortage in end.outcome.shortages.keys { cycleFailures[shortage, default: 0] += 1 }
            logger.error(
                "cycle failed: pinwatch itself ran out of resources; hosts it could not probe keep their previous verdicts",
                metadata: [
                    "reason": "\(end.outcome.shortages.keys.map(\.rawValue).sorted().joined(separator: ","))",
                    "hosts_not_probed": "\(end.outcome.shortages.values.reduce(0, +))",
                ])
        } else {
            completedCycles += 1
            lastCompleted = (end.finishedAt, duration)
        }
        if let progress = ct?.catchUpProgressIfMoved() { logger.info("ct catching up", metadata: ["progress": "\(progress)"]) }
        let reports = end.reports
        let shown = lastCompleted ?? (end.finishedAt, duration)
        let cycle = PrometheusExposition.Cycle(
            finishedAt: shown.finishedAt, duration: shown.duration, completedCycles: completedCycles,
            interval: monitor.config.interval, failures: cycleFailures, ctLogs: ct?.logStates)
        var historyText: [UInt8] = []
        if let history {
            let health = history.writeHealth
            historyText += PrometheusExposition.historyWrites(health).utf8
            historyText += chainChanges.exposition(reports, vantage: monitor.config.vantage).utf8
            logHistoryNotices(health, at: end.finishedAt)
        }
        let vantage = monitor.config.vantage
        let deprecatedSeries = monitor.config.deprecatedSeries
        var counts: Logger.Metadata = ["hosts": "\(reports.count)", "duration_ms": "\(Int(cycle.duration * 1000))"]
        let severities = SeveritySummary(reports)
        for severity in HostSeverity.worstFirst {
            counts[severity.rawValue] = "\(severities.count(of: severity))"
        }
        renderQueue.async { [self, historyText, counts] in
            var text = renderer.render(
                reports, cycle: cycle, version: version, vantage: vantage, deprecatedSeries: deprecatedSeries)
            text += historyText
            published.publish(Data(text))
            // Once its text is served: a reader of the log may scrape it.
            logger.info("cycle finished", metadata: counts)
        }
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

/// The text scrapes read, swapped whole at the end of each cycle's render.
private final class PublishedMetrics: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    private var generation = 0
    private var ready = false
    /// Set once, before the first cycle.
    var prepare: (@Sendable (Data, Int) -> Void)?

    /// Prepared before it is shown: a scrape never finds a render whose
    /// copies are still to make. Called on the render queue only.
    func publish(_ metrics: Data) {
        let next = generation + 1
        prepare?(metrics, next)
        lock.lock()
        data = metrics
        generation = next
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
