import Foundation
import PinwatchCore
import PinwatchHistory
import PinwatchMonitor
import PinwatchProbe
import PinwatchService
import PinwatchSystem
import PinwatchTerminal
import PinwatchUI

/// The dashboard's single loop: every ncurses call, every state change and
/// every paint happens on the main queue. The `Monitor` (on the main queue
/// too) runs the cycles, reloads and hooks; this draws what it tells.
///
/// Update apart from draw: results, keys and ticks only change the state and
/// ask for a paint; one paint per turn of the main queue draws whatever the
/// state is then.
///
/// `@unchecked Sendable` because the monitor's events capture it; they run
/// on the main queue, and every member is touched only on that queue.
final class DashboardController: @unchecked Sendable {
    /// What the demo adds to a plain dashboard.
    struct Hooks {
        /// Called on the main queue after each completed cycle (1, 2, …).
        var cycleFinished: ((_ cycle: Int, _ controller: DashboardController) -> Void)?
        /// Reads the configuration again (SIGHUP); nil when there is no
        /// file to read (the demo). Runs off the main queue: reading may
        /// download a signed pin list.
        var reloadConfig: (@Sendable () throws -> Config)?
    }

    /// The running configuration is the monitor's own.
    private var config: Config { monitor.config }
    /// Made on first use (its reports capture the controller), then kept
    /// for the life of the process: its cap holds across reloads.
    private lazy var alertHooks = makeHookRunner(firstConfig.hooks)
    /// `alertHooks.currentCounts` as last announced.
    private var announcedHookCounts = HookRunner.Counts()
    private let environment: [String: String]
    private let firstConfig: Config
    /// Made on first use (its events capture the controller).
    private lazy var monitor = makeMonitor()
    /// Kept across reloads (a new `state:` takes a restart).
    let history: HostHistoryRecorder?
    /// The configuration's silences and the store's acknowledgements, kept across reloads.
    let acknowledgements: AcknowledgementLedger
    private let bellEnabled: Bool
    private let hooks: Hooks
    private let screen: TerminalScreen
    private var theme: Theme
    var state: DashboardState
    private var sources: [DispatchSourceProtocol] = []
    private var jobControl: JobControl?
    private var paintScheduled = false
    private var firstFrameTiming: FirstFrameTiming

    init(
        config: Config, environment: [String: String], theme: Theme, bellEnabled: Bool, mouse: Bool = true, hooks: Hooks = Hooks(),
        history: HostHistoryRecorder? = nil, display: DisplayChoice = DisplayChoice()
    ) throws {
        self.environment = environment
        self.firstConfig = config
        self.history = history
        acknowledgements = AcknowledgementLedger.reading(storeAt: (history as? HistoryStore)?.path)
        self.bellEnabled = bellEnabled
        self.hooks = hooks
        self.theme = theme
        self.firstFrameTiming = FirstFrameTiming(environment: ProcessEnvironment.current)
        self.state = DashboardState.make(config: config, environment: environment, themeName: theme.name, display: display)
        state.canStoreAcknowledgements = Self.storesAcknowledgements(history)
        self.screen = try TerminalScreen(mouse: mouse)
        if ThemeLoader.prefersMono(environment: environment, colorCount: screen.colorCount), theme.name != "mono" {
            self.theme = ThemeLoader.mono
            state.themeName = "mono"
        }
    }

    /// Starts the sources and gives the main thread to Dispatch; returns
    /// only through `exit`.
    func run() -> Never {
        watchSignals()
        watchJobControl()
        watchKeyboard()
        startTicking()
        monitor.start()
        paint()
        dispatchMain()
    }

    /// The header's note that the history is read-only (another pinwatch holds the store).
    func noteHistoryReadOnly(_ note: String) {
        state.historyNote = note
    }

    /// A one-line note in the footer (the demo says what it just did).
    func announce(_ message: String) {
        state.footerMessage = message
        schedulePaint()
    }

    // MARK: The monitor's events

    private func makeMonitor() -> Monitor<HostPoller> {
        let environment = self.environment
        let history = self.history
        let acknowledgements = self.acknowledgements
        return Monitor(
            config: firstConfig, queue: .main,
            makePoller: { HostPoller(config: $0, environment: environment, history: history, acknowledgements: acknowledgements) },
            hooks: alertHooks,
            readConfig: hooks.reloadConfig, onEvent: { [weak self] in self?.handle($0) })
    }

    private func handle(_ event: MonitorEvent) {
        switch event {
        case .nextTick(let date):
            state.nextCycleAt = date
        case .cycleStarted(let hosts, let time):
            state.beginCycle(total: hosts, at: time)
        case .reports(let batch, _):
            receive(batch)
        case .cycleFinished(let end):
            finishCycle(end)
        case .cycleOverran(let interval, let time):
            announce(
                "a cycle outlasted the \(ConfigDuration.describe(interval)) interval (\(Self.clock(time))): "
                    + "the next starts when it ends")
        case .reloadRead(let newConfig, let cause):
            let why = cause == .clientFilesChanged ? "a client pin file changed: " : ""
            announce("\(why)configuration reloaded: \(newConfig.hosts.count) hosts from the next cycle")
        case .reloadFailed(let error, _):
            let problems = "\(error)".split(separator: "\n").map { $0.replacingOccurrences(of: "pinwatch: ", with: "") }
            let more = problems.count > 1 ? " (+\(problems.count - 1) more)" : ""
            announce("⚠ reload refused, still running the previous configuration: \(problems.first ?? "")\(more)")
        case .reloadApplied(let newConfig):
            state.replaceHosts(newConfig.hosts, warnDays: newConfig.warnDays, criticalDays: newConfig.criticalDays)
            state.clients = newConfig.clients.map { ($0.name, $0.pins.format) }
            state.describeCatalogue(newConfig.catalogue, now: Date())
        }
        schedulePaint()
    }

    /// One bell per batch at most, however many hosts got worse in it.
    private func receive(_ batch: HostPoller.Batch) {
        let now = Date()
        var ring = false
        for (index, report) in batch where state.record(report, forHost: index, at: now) { ring = true }
        if ring, bellEnabled { screen.bell() }
        forgetSpentAcknowledgements()
    }

    /// Hook outcomes go to the footer: the dashboard has no log.
    private func makeHookRunner(_ hooks: [HookCommand]) -> HookRunner {
        HookRunner(hooks: hooks) { [weak self] report in
            let detail = report.stderr.isEmpty ? "" : ": \(report.stderr)"
            let text = "hook \((report.command as NSString).lastPathComponent) for \(report.host): \(report.outcome)\(detail)"
            let message = report.succeeded ? text : "⚠ " + text
            DispatchQueue.main.async { [weak self] in self?.announce(message) }
        }
    }

    /// SIGHUP: a valid configuration takes effect on the next cycle and
    /// hosts that stay keep their state; an invalid one is refused and the
    /// running one stays.
    private func reload() {
        if !monitor.requestReload() { announce("nothing to reload: the demo has no configuration file") }
    }

    private func finishCycle(_ end: MonitorEvent.CycleEnd) {
        state.finishCycle(at: end.finishedAt)
        if end.outcome.failed {
            let what = end.outcome.shortages.keys.map(\.rawValue).sorted().joined(separator: " and ")
            announce(
                "⚠ cycle failed: pinwatch ran out of \(what); \(end.outcome.shortages.values.reduce(0, +)) hosts keep their previous results"
            )
        }
        hooks.cycleFinished?(end.number, self)
        announceHookQueue()
    }

    /// Once a cycle at most, when hook runs were merged or dropped since.
    private func announceHookQueue() {
        let counts = alertHooks.currentCounts
        let last = announcedHookCounts
        guard counts.merged != last.merged || counts.dropped != last.dropped else { return }
        announcedHookCounts = counts
        announce(
            "⚠ hooks behind: \(counts.merged - last.merged) events merged into newer ones, "
                + "\(counts.dropped - last.dropped) dropped, \(counts.waiting) waiting")
    }

    /// `r`: a cycle now, and the regular ones counted from now.
    private func refreshNow() {
        if !monitor.refreshNow() { announce("a cycle is already running") }
    }

    // MARK: Input

    private func watchKeyboard() {
        let source = DispatchSource.makeReadSource(fileDescriptor: STDIN_FILENO, queue: .main)
        source.setEventHandler { [weak self] in self?.readKeys() }
        source.resume()
        sources.append(source)
    }

    private func readKeys() {
        let keys = screen.readKeys()
        // Keys and the hang-up can arrive in one wake-up; the source may
        // not wake again for a terminal already gone.
        leaveIfTheTerminalIsGone()
        for key in keys {
            if key == .resize {
                screen.handleResize()
                continue
            }
            for command in state.handle(key) {
                perform(command)
            }
        }
        schedulePaint()
    }

    /// Called on every key wake-up, every SIGHUP and every tick, so no
    /// moment (a cycle, a reload, a hook starting) lets a dashboard outlive
    /// its terminal.
    private func leaveIfTheTerminalIsGone() {
        if isStandardInputClosed() { quit(status: 0) }
    }

    private func isStandardInputClosed() -> Bool {
        var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, 0) >= 0 else { return true }
        return descriptor.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0
    }

    private func perform(_ command: DashboardCommand) {
        switch command {
        case .quit:
            quit(status: 0)
        case .refresh:
            refreshNow()
        case .nextTheme:
            cycleTheme()
        case .copyPins(let index):
            copyPins(ofHost: index)
        case .acknowledge(let index, let until, let reason):
            acknowledge(host: index, until: until, reason: reason)
        case .removeAcknowledgement(let index):
            removeAcknowledgement(ofHost: index)
        }
    }

    private func cycleTheme() {
        let names = ThemeChoice.availableNames(environment: environment)
        let next = ThemeLoader.nextName(after: state.themeName, in: names)
        do {
            theme = try ThemeChoice.load(requested: next, config: config, colorCount: screen.colorCount, environment: environment)
            state.themeName = theme.name
            announce("theme: \(theme.name)")
        } catch {
            announce("theme \(next): \(error)")
        }
    }

    private func copyPins(ofHost index: Int) {
        guard state.reports.indices.contains(index), let report = state.reports[index],
            let stanza = PinStanza.document(for: report)
        else {
            announce("no chain yet to copy pins from")
            return
        }
        let bytes = screen.sendClipboard(stanza)
        state.stanzaText = stanza
        // pinwatch cannot know whether the terminal took it: say what was sent.
        let inTmux = environment["TMUX"] != nil
        announce(
            "stanza: \(bytes) bytes sent as OSC 52, copied only if the terminal allows it"
                + (inTmux ? " (tmux: set-clipboard on)" : "") + "; shown below")
    }

    // MARK: Signals and time

    private func watchSignals() {
        for signalNumber in [SIGWINCH, SIGINT, SIGTERM, SIGHUP, SIGQUIT] {
            // Dispatch delivers these on the main queue; the default action
            // must not run first and kill the process with the terminal raw.
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .main)
            source.setEventHandler { [weak self] in self?.handle(signal: signalNumber) }
            source.resume()
            sources.append(source)
        }
    }

    private func watchJobControl() {
        do {
            jobControl = try JobControl(queue: .main) { [weak self] event in self?.handle(event) }
        } catch {
            // Without it Ctrl-Z is ignored (the disposition stays SIG_IGN).
            announce("\(error)")
        }
    }

    private func handle(_ event: JobControl.Event) {
        switch event {
        case .stopRequested:
            screen.suspend()
            jobControl?.stopProcess()
            screen.resume()
            paint()
        case .continued:
            screen.handleResize()
            paint()
        }
    }

    private func handle(signal signalNumber: Int32) {
        switch signalNumber {
        case SIGWINCH:
            screen.handleResize()
            paint()
        case SIGINT:
            // Ctrl-C is a documented way to quit, like `q`.
            quit(status: 0)
        case SIGHUP:
            // A reload request, unless the terminal really hung up.
            leaveIfTheTerminalIsGone()
            reload()
        default:
            screen.restore()
            TerminalGuard.reraise(signalNumber)
        }
    }

    private func startTicking() {
        // Clocks and ages change once a second; the same tick is the
        // backstop for a terminal lost without any wake-up of the keyboard.
        let tick = DispatchSource.makeTimerSource(queue: .main)
        tick.schedule(deadline: .now() + 1, repeating: 1, leeway: .milliseconds(200))
        tick.setEventHandler { [weak self] in
            self?.leaveIfTheTerminalIsGone()
            self?.schedulePaint()
        }
        tick.resume()
        sources.append(tick)
    }

    // MARK: Painting

    private func schedulePaint() {
        guard !paintScheduled else { return }
        paintScheduled = true
        DispatchQueue.main.async { [weak self] in
            self?.paintScheduled = false
            self?.paint()
        }
    }

    private func paint() {
        let size = screen.size
        let frame = DashboardLayout.paint(&state, width: size.columns, height: size.rows, now: Date())
        screen.paint(frame, theme: theme)
        firstFrameTiming.framePainted()
    }

    private func quit(status: Int32) -> Never {
        // A hook still running must not outlive the dashboard.
        alertHooks.stop()
        screen.restore()
        // _exit, not exit: exit's atexit handlers (OpenSSL's global cleanup
        // among them) would run while probe and demo-server threads may
        // still be inside OpenSSL. Nothing is left to save once stdio is
        // flushed.
        fflush(nil)
        _exit(status)
    }

    private static func clock(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm:ss"
        return formatter.string(from: date)
    }
}
