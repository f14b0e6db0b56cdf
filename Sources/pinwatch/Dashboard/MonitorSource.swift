import Foundation
import PinwatchCore
import PinwatchHistory
import PinwatchMonitor
import PinwatchProbe
import PinwatchService
import PinwatchUI

/// `watch`: the reports of the local `Monitor` (on the main queue too),
/// which runs the cycles, reloads and hooks; this tells the dashboard what
/// it says.
///
/// `@unchecked Sendable` because the monitor's events capture it; they run
/// on the main queue, and every member is touched only on that queue.
final class MonitorSource: DashboardSource, @unchecked Sendable {
    /// What the demo adds to a plain dashboard.
    struct Hooks {
        /// Called on the main queue after each completed cycle (1, 2, …).
        var cycleFinished: ((_ cycle: Int, _ dashboard: DashboardController) -> Void)?
        /// Reads the configuration again (SIGHUP); nil when there is no
        /// file to read (the demo). Runs off the main queue: reading may
        /// download a signed pin list.
        var reloadConfig: (@Sendable () throws -> Config)?
    }

    private let firstConfig: Config
    private let environment: [String: String]
    private let hooks: Hooks
    /// Made on first use (its reports capture the source), then kept for
    /// the life of the process: its cap holds across reloads.
    private lazy var alertHooks = makeHookRunner(firstConfig.hooks)
    /// Made on first use (its events capture the source).
    private lazy var monitor = makeMonitor()
    /// Kept across reloads (a new `state:` takes a restart).
    let history: HostHistoryRecorder?
    /// The configuration's silences and the store's acknowledgements, kept across reloads.
    let acknowledgements: AcknowledgementLedger
    /// `ct:`'s logs, followed across reloads; nil without it.
    let ct: CTFollowing?
    private(set) weak var dashboard: DashboardController?

    init(config: Config, environment: [String: String], hooks: Hooks, history: HostHistoryRecorder?) throws {
        ct = try CTRuntime.following(config, history: history)
        firstConfig = config
        self.environment = environment
        self.hooks = hooks
        self.history = history
        acknowledgements = AcknowledgementLedger.reading(storeAt: (history as? HistoryStore)?.path)
    }

    /// The dashboard's first state: the configured hosts, none probed yet.
    func initialState(themeName: String, display: DisplayChoice) -> DashboardState {
        var state = DashboardState.make(config: firstConfig, environment: environment, themeName: themeName, display: display)
        state.canStoreAcknowledgements = Self.storesAcknowledgements(history)
        return state
    }

    func start(_ dashboard: DashboardController) {
        self.dashboard = dashboard
        monitor.start()
    }

    /// `r`: a cycle now, and the regular ones counted from now.
    func refresh() {
        if !monitor.refreshNow() { dashboard?.announce("a cycle is already running") }
    }

    /// SIGHUP: a valid configuration takes effect on the next cycle and
    /// hosts that stay keep their state; an invalid one is refused and the
    /// running one stays.
    func reload() {
        if !monitor.requestReload() { dashboard?.announce("nothing to reload: the demo has no configuration file") }
    }

    func tick(now: Date) {}

    func stanzaReport(_ report: HostReport) -> HostReport { report }

    func stop() {
        alertHooks.stop()
    }

    // MARK: The monitor's events

    private func makeMonitor() -> Monitor<HostPoller> {
        let environment = self.environment
        let history = self.history
        let acknowledgements = self.acknowledgements
        let ct = self.ct
        return Monitor(
            config: firstConfig, queue: .main,
            makePoller: { config in
                ct?.use(config)
                return HostPoller(config: config, environment: environment, history: history, acknowledgements: acknowledgements, ct: ct)
            },
            hooks: alertHooks,
            readConfig: hooks.reloadConfig, onEvent: { [weak self] in self?.handle($0) })
    }

    /// News and a cycle's end paint at once; its start and progress wait
    /// for the second's tick, so a fleet probed every second paints about
    /// twice a second rather than once per batch.
    private func handle(_ event: MonitorEvent) {
        guard let dashboard else { return }
        switch event {
        case .nextTick(let date):
            dashboard.state.nextCycleAt = date
            return
        case .cycleStarted(let hosts, let time):
            dashboard.state.beginCycle(total: hosts, at: time)
            return
        case .reports(let batch, _):
            guard receive(batch, on: dashboard) else { return }
        case .cycleFinished(let end):
            finishCycle(end, on: dashboard)
        case .cycleOverran(let interval, let time):
            dashboard.announce(
                "a cycle outlasted the \(ConfigDuration.describe(interval)) interval (\(Self.clock(time))): "
                    + "the next starts when it ends")
        case .reloadRead(let newConfig, let cause):
            let why = cause == .clientFilesChanged ? "a client pin file changed: " : ""
            dashboard.announce("\(why)configuration reloaded: \(newConfig.hosts.count) hosts from the next cycle")
        case .reloadFailed(let error, _):
            let problems = "\(error)".split(separator: "\n").map { $0.replacingOccurrences(of: "pinwatch: ", with: "") }
            let more = problems.count > 1 ? " (+\(problems.count - 1) more)" : ""
            dashboard.announce("⚠ reload refused, still running the previous configuration: \(problems.first ?? "")\(more)")
        case .reloadApplied(let newConfig):
            dashboard.state.replaceHosts(newConfig.hosts, warnDays: newConfig.warnDays, criticalDays: newConfig.criticalDays)
            dashboard.state.clients = newConfig.clients.map { ($0.name, $0.pins.format) }
            dashboard.state.describeCatalogue(newConfig.catalogue, now: Date())
        case .hooksBehind(let behind):
            dashboard.announce(
                "⚠ hooks behind: \(behind.merged) events merged into newer ones, \(behind.dropped) dropped, "
                    + "\(behind.failedStarts) not started, \(behind.waiting) waiting")
        }
        dashboard.schedulePaint()
    }

    /// One bell per batch at most, however many hosts got worse in it.
    /// True when a row says something new (the paint is then at once).
    private func receive(_ batch: HostPoller.Batch, on dashboard: DashboardController) -> Bool {
        let now = Date()
        var ring = false
        var news = false
        for (index, report) in batch {
            let previous: HostReport? = dashboard.state.reports.indices.contains(index) ? dashboard.state.reports[index] : nil
            if Self.isNews(report, after: previous) { news = true }
            if dashboard.state.record(report, forHost: index, at: now) { ring = true }
        }
        if ring { dashboard.ringBell() }
        forgetSpentAcknowledgements()
        return news || ring
    }

    /// What a row shows besides its age: a first result, another verdict,
    /// reason or acknowledgement, another certificate or days left.
    private static func isNews(_ report: HostReport, after previous: HostReport?) -> Bool {
        guard let previous else { return true }
        return previous.status != report.status || previous.severity != report.severity || previous.reason != report.reason
            || previous.matchedTiers != report.matchedTiers || previous.daysLeft != report.daysLeft
            || (previous.acknowledgement == nil) != (report.acknowledgement == nil)
            || previous.levels.map(\.certificate.facts.certSHA256) != report.levels.map(\.certificate.facts.certSHA256)
            || previous.result.failure?.kind != report.result.failure?.kind
    }

    /// Hook outcomes go to the footer: the dashboard has no log.
    private func makeHookRunner(_ hooks: [HookCommand]) -> HookRunner {
        HookRunner(hooks: hooks, reportQueue: .main) { [weak self] report in
            let detail = report.stderr.isEmpty ? "" : ": \(report.stderr)"
            let text = "hook \((report.command as NSString).lastPathComponent) for \(report.host): \(report.outcome)\(detail)"
            self?.dashboard?.announce(report.succeeded ? text : "⚠ " + text)
        }
    }

    private func finishCycle(_ end: MonitorEvent.CycleEnd, on dashboard: DashboardController) {
        dashboard.state.finishCycle(at: end.finishedAt)
        if end.outcome.failed {
            let what = end.outcome.shortages.keys.map(\.rawValue).sorted().joined(separator: " and ")
            dashboard.announce(
                "⚠ cycle failed: pinwatch ran out of \(what); \(end.outcome.shortages.values.reduce(0, +)) hosts keep their previous results"
            )
        }
        // A log reading a large gap says how far it is, while it changes.
        if let progress = ct?.catchUpProgressIfMoved() { dashboard.announce(progress) }
        hooks.cycleFinished?(end.number, dashboard)
    }

    private static func clock(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm:ss"
        return formatter.string(from: date)
    }
}
