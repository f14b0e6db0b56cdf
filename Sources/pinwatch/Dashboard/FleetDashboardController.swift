import Foundation
import PinwatchCore
import PinwatchFleet
import PinwatchTerminal
import PinwatchUI

/// `watch --prometheus`: the dashboard over a fleet's verdicts as one
/// Prometheus server holds them. Nothing is probed here; every refresh is
/// one instant query, and the rows, banner, detail view, keys and themes
/// are the local dashboard's own, fed with reports rebuilt from series.
///
/// Everything but the query's completion runs on the main queue, which
/// the completion hops back onto; `@unchecked Sendable` for that hop.
final class FleetDashboardController: @unchecked Sendable {
    private let query: FleetQuery
    /// `--interval`; without it the view refreshes as often as the
    /// exporters poll (`pinwatch_poll_interval_seconds`), once they say.
    private let chosenInterval: TimeInterval?
    private var interval: TimeInterval
    private let environment: [String: String]
    private let config: Config
    private let bellEnabled: Bool
    private let screen: TerminalScreen
    private var theme: Theme
    private var state: DashboardState
    private var refreshTimer: DispatchSourceTimer?
    private var keepAlive: [DispatchSourceProtocol] = []
    private var jobControl: JobControl?
    private var fetching = false
    private var paintPending = false
    private var view: FleetView
    private var failingSince: Date?

    init(
        query: FleetQuery, config: Config, interval chosenInterval: TimeInterval?, environment: [String: String], theme: Theme, bell: Bool,
        mouse: Bool,
        display: DisplayChoice = DisplayChoice()
    ) throws {
        self.query = query
        self.config = config
        self.chosenInterval = chosenInterval
        // Until an answer names the exporters, asked again soon: a view
        // started before Prometheus' first scrape is not left a minute empty.
        interval = chosenInterval ?? min(config.interval, Self.untilExportersAnswer)
        self.environment = environment
        self.theme = theme
        bellEnabled = bell
        view = FleetView(server: query.server.absoluteString)
        view.refresh = interval
        var state = DashboardState(configPath: query.server.absoluteString, hosts: [], themeName: theme.name)
        display.apply(to: &state)
        state.sourceNote = "prometheus \(query.server.absoluteString): asking…"
        self.state = state
        screen = try TerminalScreen(mouse: mouse)
        if ThemeLoader.prefersMono(environment: environment, colorCount: screen.colorCount), theme.name != "mono" {
            self.theme = ThemeLoader.mono
            self.state.themeName = "mono"
        }
    }

    func run() -> Never {
        for signalNumber in [SIGWINCH, SIGINT, SIGTERM, SIGHUP, SIGQUIT] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .main)
            source.setEventHandler { [weak self] in self?.received(signal: signalNumber) }
            source.resume()
            keepAlive.append(source)
        }
        do {
            jobControl = try JobControl(queue: .main) { [weak self] event in self?.jobControl(event) }
        } catch {
            // Without it Ctrl-Z is ignored; said, as the local dashboard does.
            state.footerMessage = "\(error)"
        }
        let keyboard = DispatchSource.makeReadSource(fileDescriptor: STDIN_FILENO, queue: .main)
        keyboard.setEventHandler { [weak self] in self?.keysArrived() }
        keyboard.resume()
        keepAlive.append(keyboard)
        // Ages in the header move every second; the same tick notices a
        // terminal that went away without waking the keyboard source.
        let tick = DispatchSource.makeTimerSource(queue: .main)
        tick.schedule(deadline: .now() + 1, repeating: 1, leeway: .milliseconds(200))
        tick.setEventHandler { [weak self] in
            self?.quitIfTerminalClosed()
            self?.describeSource(now: Date())
            self?.requestPaint()
        }
        tick.resume()
        keepAlive.append(tick)
        let timer = DispatchSource.makeTimerSource(queue: .main)
        timer.schedule(deadline: .now(), repeating: interval, leeway: .milliseconds(100))
        timer.setEventHandler { [weak self] in self?.ask() }
        timer.resume()
        refreshTimer = timer
        paintNow()
        dispatchMain()
    }

    // MARK: Asking Prometheus

    private func ask() {
        // A slow server is not asked twice at once; the next tick asks again.
        guard !fetching else { return }
        fetching = true
        query.fetch { outcome in
            DispatchQueue.main.async { [weak self] in self?.answered(outcome) }
        }
    }

    private func answered(_ outcome: Result<FleetSnapshot, FleetQueryProblem>) {
        fetching = false
        let now = Date()
        switch outcome {
        case .success(let fleet):
            show(fleet, at: now)
            // Every instance gone is said as such, not as a selector that matches nothing.
            if let gone = view.goneProblem(timeZone: state.timeZone) {
                failingSince = nil
                state.sourceProblem = gone
            } else if fleet.hosts.isEmpty {
                fail(FleetView.nothingMatches(query), at: now)
            } else {
                failingSince = nil
                state.sourceProblem = nil
            }
            followExporters(fleet)
        case .failure(let problem):
            // The last rows stay, aged in the header, under the banner.
            fail(problem.description, at: now)
        }
        describeSource(now: now)
        requestPaint()
    }

    /// Asks as often as the exporters can change the answer: a rotation
    /// shows within one of their cycles, not within a minute.
    private func followExporters(_ fleet: FleetSnapshot) {
        guard chosenInterval == nil, !fleet.instances.isEmpty else { return }
        // An exporter too old to say its interval: the configuration's.
        let wanted = min(max(fleet.pollInterval ?? config.interval, Self.shortestRefresh), Self.longestRefresh)
        guard wanted != interval else { return }
        interval = wanted
        view.refresh = wanted
        refreshTimer?.schedule(deadline: .now() + wanted, repeating: wanted, leeway: .milliseconds(100))
    }

    /// Past these the exporters' interval is not followed: Prometheus is
    /// not asked more than once a second, nor the screen left an hour old.
    static let shortestRefresh: TimeInterval = 1
    static let untilExportersAnswer: TimeInterval = 5
    static let longestRefresh: TimeInterval = 3_600

    private func fail(_ problem: String, at now: Date) {
        if failingSince == nil { failingSince = now }
        let since = Formatting.clock(failingSince ?? now, timeZone: state.timeZone)
        state.sourceProblem = "\(problem) (since \(since))"
    }

    private func show(_ fleet: FleetSnapshot, at now: Date) {
        if view.show(fleet, on: &state, config: config, at: now), bellEnabled { screen.bell() }
    }

    private func describeSource(now: Date) {
        state.sourceNote = view.note(for: state, now: now)
    }

    // MARK: Keys, signals, terminal

    private func keysArrived() {
        let keys = screen.readKeys()
        quitIfTerminalClosed()
        for key in keys {
            guard key != .resize else {
                screen.handleResize()
                continue
            }
            for command in state.handle(key) { perform(command) }
        }
        requestPaint()
    }

    private func perform(_ command: DashboardCommand) {
        switch command {
        case .quit:
            leave()
        case .refresh:
            ask()
        case .nextTheme:
            let next = ThemeLoader.nextName(after: state.themeName, in: ThemeChoice.availableNames(environment: environment))
            if let chosen = try? ThemeChoice.load(requested: next, config: config, colorCount: screen.colorCount, environment: environment)
            {
                theme = chosen
                state.themeName = chosen.name
                state.footerMessage = "theme: \(chosen.name)"
            }
        case .acknowledge, .removeAcknowledgement:
            // The fleet's verdicts belong to the instances that decided them.
            state.footerMessage = "acknowledge on the instance that watches the host (its dashboard or silence:), not from --prometheus"
        case .copyPins(let index):
            // The stanza configures the host itself, whichever vantage saw it.
            var report = state.reports.indices.contains(index) ? state.reports[index] : nil
            report?.config.vantage = nil
            guard let stanza = report.flatMap(PinStanza.document(for:)) else {
                state.footerMessage = "no chain to copy pins from"
                return
            }
            let sent = screen.sendClipboard(stanza)
            state.stanzaText = stanza
            state.footerMessage = "stanza: \(sent) bytes sent as OSC 52, copied only if the terminal allows it; shown below"
        }
    }

    private func received(signal signalNumber: Int32) {
        switch signalNumber {
        case SIGWINCH:
            screen.handleResize()
            paintNow()
        case SIGINT:
            leave()
        case SIGHUP:
            quitIfTerminalClosed()
            ask()
        default:
            screen.restore()
            TerminalGuard.reraise(signalNumber)
        }
    }

    private func jobControl(_ event: JobControl.Event) {
        if case .stopRequested = event {
            screen.suspend()
            jobControl?.stopProcess()
            screen.resume()
        } else {
            screen.handleResize()
        }
        paintNow()
    }

    private func quitIfTerminalClosed() {
        var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        let closed = poll(&descriptor, 1, 0) < 0 || descriptor.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0
        if closed { leave() }
    }

    private func requestPaint() {
        guard !paintPending else { return }
        paintPending = true
        DispatchQueue.main.async { [weak self] in
            self?.paintPending = false
            self?.paintNow()
        }
    }

    private func paintNow() {
        let size = screen.size
        screen.paint(DashboardLayout.paint(&state, width: size.columns, height: size.rows, now: Date()), theme: theme)
    }

    private func leave() -> Never {
        query.close()
        screen.restore()
        fflush(nil)
        _exit(0)
    }
}
