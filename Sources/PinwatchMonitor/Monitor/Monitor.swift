import Dispatch
import Foundation
import PinwatchCore

/// The long-running loop both front ends share (`watch` and `serve`): the
/// interval timer, cycles that never overlap, reloads that take over
/// between cycles, client pin files checked at each cycle start, severity
/// transitions by host identity, and the hooks told of each transition
/// once. What happens is told to `onEvent`; the dashboard and the exporter
/// only draw or publish it (docs/DECISIONS.md, "Architecture: the Monitor").
///
/// Every member is touched only on `queue`: call `start`, `requestReload`
/// and `refreshNow` there. `@unchecked Sendable` for the poller's and the
/// reader's callbacks, which hop back onto `queue`.
package final class Monitor<Poller: MonitorPoller>: @unchecked Sendable {
    package typealias ConfigReader = @Sendable () throws -> Config

    private let queue: DispatchQueue
    private let makePoller: (Config) -> Poller
    private let hooks: MonitorHooks
    private let timer: MonitorTimer
    private let now: () -> Date
    private let readConfig: ConfigReader?
    private let readQueue: DispatchQueue
    private let onEvent: (MonitorEvent) -> Void

    /// The running configuration is the poller's own.
    package private(set) var poller: Poller
    package var config: Config { poller.config }
    private var pendingConfig: Config?
    /// Whether a request (SIGHUP, the dashboard) is among the reads behind
    /// `pendingConfig`: its first cycle then starts as soon as it applies.
    private var pendingRequested = false
    private var interval: TimeInterval
    /// When the timer ticks next, as last planned.
    private var nextTick: Date
    private var cycleRunning = false
    /// A tick came while a cycle ran: the next starts as that one ends.
    private var cycleDue = false
    /// Ticks that came while a cycle still ran, since start.
    package private(set) var lateTicks = 0
    private var finishedCycles = 0
    private var cycleStartedAt: Date
    private var cycleReports: [HostReport?] = []
    /// The latest report per host identity, across reloads: what a new
    /// report is compared with to find a transition.
    private var latest: [String: HostReport] = [:]
    /// Transitions told since start: the last one's `sequence`.
    private var transitionsTold = 0
    /// `hooks.currentCounts` as last told in `hooksBehind`.
    private var hookCountsTold = HookRunner.Counts()
    private var clientStamps: ClientSourceStamps
    /// A configuration being read off `queue`.
    private var reading = false
    /// A request came during a read: read again once it ends, so the
    /// newest file is the one that runs.
    private var readAgain: MonitorEvent.ReloadCause?

    /// A requested reload's cycle never starts sooner than this after the
    /// previous cycle's start (nor than the interval, if shorter): a burst of
    /// SIGHUPs is not a burst of cycles.
    package static var reloadCycleGap: TimeInterval { 5 }

    /// `readConfig` nil: nothing to reload (the demo). `readQueue`: where
    /// the configuration is read, never `queue` (a signed pin list may be
    /// downloaded). `timer` nil: a Dispatch timer on `queue`.
    package init(
        config: Config, queue: DispatchQueue, makePoller: @escaping (Config) -> Poller, hooks: MonitorHooks,
        readConfig: ConfigReader?, timer: MonitorTimer? = nil, now: @escaping () -> Date = Date.init,
        readQueue: DispatchQueue = .global(qos: .userInitiated), onEvent: @escaping (MonitorEvent) -> Void
    ) {
        self.queue = queue
        self.makePoller = makePoller
        self.hooks = hooks
        self.timer = timer ?? DispatchMonitorTimer(queue: queue)
        self.now = now
        self.readConfig = readConfig
        self.readQueue = readQueue
        self.onEvent = onEvent
        poller = makePoller(config)
        interval = config.interval
        nextTick = now()
        cycleStartedAt = nextTick
        clientStamps = ClientSourceStamps(config)
    }

    /// The first cycle now, then one per interval.
    package func start() {
        timer.setHandler { [weak self] in self?.tick() }
        nextTick = now()
        timer.schedule(after: 0, repeating: interval)
    }

    /// Reads the configuration again off `queue`; false when there is no
    /// reader. The result is told as `reloadRead` or `reloadFailed`.
    @discardableResult
    package func requestReload(because cause: MonitorEvent.ReloadCause = .requested) -> Bool {
        guard let readConfig else { return false }
        guard !reading else {
            readAgain = readAgain ?? cause
            return true
        }
        reading = true
        readQueue.async { [self] in
            let outcome = Result { try readConfig() }
            queue.async { [self] in finishRead(outcome, cause: cause) }
        }
        return true
    }

    /// A cycle now, the regular ones counted from now; false while one runs.
    @discardableResult
    package func refreshNow() -> Bool {
        guard !cycleRunning else { return false }
        nextTick = now()
        timer.schedule(after: 0, repeating: interval)
        return true
    }

    // MARK: Cycles

    private func tick() {
        nextTick = now().addingTimeInterval(interval)
        onEvent(.nextTick(nextTick))
        startCycle()
    }

    /// A cycle still running when the next is due is not doubled: its
    /// hosts are not probed twice, and the next starts as it ends.
    private func startCycle() {
        if !cycleRunning, !reading, readConfig != nil, clientStamps.changedOnDisk {
            requestReload(because: .clientFilesChanged)
        }
        guard !cycleRunning else {
            cycleDue = true
            lateTicks += 1
            if lateTicks == 1 { onEvent(.cycleOverran(interval: interval, at: now())) }
            return
        }
        cycleRunning = true
        cycleStartedAt = now()
        cycleReports = Array(repeating: nil, count: poller.config.hosts.count)
        onEvent(.cycleStarted(hosts: poller.config.hosts.count, at: cycleStartedAt))
        // The monitor lives as long as its front end, which is the
        // process: the strong captures cost nothing.
        poller.pollCycle(on: queue, onReports: { self.receive($0) }, onFinish: { self.finishCycle($0) })
    }

    private func receive(_ batch: HostPoller.Batch) {
        let time = now()
        var transitions: [SeverityTransition] = []
        for (index, report) in batch where cycleReports.indices.contains(index) {
            cycleReports[index] = report
            let key = report.config.identityKey
            if var transition = SeverityTransition.between(latest[key], report, at: time) {
                transitionsTold += 1
                transition.sequence = transitionsTold
                transition.id = UUID().uuidString.lowercased()
                transitions.append(transition)
            }
            latest[key] = report
        }
        if !transitions.isEmpty { hooks.run(for: transitions) }
        onEvent(.reports(batch, transitions: transitions))
    }

    private func finishCycle(_ outcome: HostPoller.CycleOutcome) {
        cycleRunning = false
        finishedCycles += 1
        let hosts = poller.config.hosts
        let reports = hosts.indices.compactMap { index in
            cycleReports.indices.contains(index) ? cycleReports[index] ?? latest[hosts[index].identityKey] : nil
        }
        onEvent(
            .cycleFinished(
                MonitorEvent.CycleEnd(
                    number: finishedCycles, outcome: outcome, startedAt: cycleStartedAt, finishedAt: now(), reports: reports)))
        tellHooksBehind()
        if applyPendingConfig() {
            // The reload's own cycle stands for the one that came due.
            cycleDue = false
        } else if cycleDue {
            cycleDue = false
            startCycle()
        }
    }

    /// At most once a cycle, and only when something was merged, dropped
    /// or could not start since: the dashboard's footer and the exporter's
    /// log say the same news.
    private func tellHooksBehind() {
        let counts = hooks.currentCounts
        let told = hookCountsTold
        guard counts.merged != told.merged || counts.dropped != told.dropped || counts.failedStarts != told.failedStarts else { return }
        hookCountsTold = counts
        var since = counts
        since.merged -= told.merged
        since.dropped -= told.dropped
        since.failedStarts -= told.failedStarts
        onEvent(.hooksBehind(since))
    }

    // MARK: Reload

    private func finishRead(_ outcome: Result<Config, any Error>, cause: MonitorEvent.ReloadCause) {
        reading = false
        switch outcome {
        case .success(let newConfig):
            pendingConfig = newConfig
            pendingRequested = pendingRequested || cause == .requested
            clientStamps = ClientSourceStamps(newConfig)
            retime(newConfig.interval)
            onEvent(.reloadRead(newConfig, cause: cause))
            if !cycleRunning { applyPendingConfig() }
        case .failure(let error):
            // Tried again when a file changes again or on request, not at every cycle.
            clientStamps = ClientSourceStamps(pendingConfig ?? config)
            onEvent(.reloadFailed(error, cause: cause))
        }
        if let again = readAgain {
            readAgain = nil
            requestReload(because: again)
        }
    }

    /// A new interval counts from the tick already planned, until a
    /// requested reload applies and plans its own cycle (`cycleAfterReload`);
    /// a reload read because client files changed starts none.
    private func retime(_ newInterval: TimeInterval) {
        guard newInterval != interval else { return }
        interval = newInterval
        timer.schedule(after: nextTick.timeIntervalSince(now()), repeating: newInterval)
        onEvent(.nextTick(nextTick))
    }

    /// Hosts that stay keep their latest report, so their transitions
    /// carry on across the reload whatever row they moved to. True when a
    /// cycle was planned for a requested reload.
    @discardableResult
    private func applyPendingConfig() -> Bool {
        guard let newConfig = pendingConfig else { return false }
        pendingConfig = nil
        let requested = pendingRequested
        pendingRequested = false
        poller = makePoller(newConfig)
        hooks.replaceHooks(newConfig.hooks)
        let kept = Set(newConfig.hosts.map(\.identityKey))
        latest = latest.filter { kept.contains($0.key) }
        onEvent(.reloadApplied(newConfig))
        guard requested else { return false }
        cycleAfterReload()
        return true
    }

    /// Whoever reloads wants to see the new configuration at work, not at
    /// the next tick (minutes away at `interval: 2m`): its cycle starts now,
    /// or once the gap since the last cycle's start has passed, and the
    /// regular ticks count from it.
    private func cycleAfterReload() {
        let earliest = cycleStartedAt.addingTimeInterval(min(interval, Self.reloadCycleGap))
        let delay = max(0, earliest.timeIntervalSince(now()))
        nextTick = now().addingTimeInterval(delay)
        timer.schedule(after: delay, repeating: interval)
        onEvent(.nextTick(nextTick))
    }
}
