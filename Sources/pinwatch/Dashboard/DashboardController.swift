import Foundation
import PinwatchCore
import PinwatchSystem
import PinwatchTerminal
import PinwatchUI

/// The dashboard's single loop, whatever its source: every ncurses call,
/// every state change and every paint happens on the main queue. The
/// source (the local `Monitor`, or a Prometheus query) changes the state;
/// this owns the terminal, the keys, the signals, the clock and the paints.
///
/// Update apart from draw: reports, keys and ticks only change the state and
/// ask for a paint; one paint per turn of the main queue draws whatever the
/// state is then.
///
/// `@unchecked Sendable` because the sources' callbacks capture it; they
/// run on the main queue, and every member is touched only on that queue.
final class DashboardController: @unchecked Sendable {
    private let source: DashboardSource
    private let environment: [String: String]
    private let bellEnabled: Bool
    private let screen: TerminalScreen
    /// Decided once, as the screen opens: NO_COLOR, or a terminal with
    /// fewer than 8 colours, keeps every theme `mono`, `t` included.
    private let colourless: Bool
    private var theme: Theme
    var state: DashboardState
    private var sources: [DispatchSourceProtocol] = []
    private var jobControl: JobControl?
    private var paintScheduled = false
    private var frameTiming: FrameTiming

    init(source: DashboardSource, state: DashboardState, environment: [String: String], theme: Theme, bell: Bool, mouse: Bool) throws {
        self.source = source
        self.environment = environment
        bellEnabled = bell
        self.state = state
        frameTiming = FrameTiming(environment: ProcessEnvironment.current)
        screen = try TerminalScreen(mouse: mouse)
        colourless = ThemeLoader.prefersMono(environment: environment, colorCount: screen.colorCount)
        // A mono theme of the user's own stays (themes/mono.yaml).
        self.theme = colourless && theme.name != "mono" ? ThemeLoader.mono : theme
        self.state.themeName = self.theme.name
    }

    /// Starts the sources and gives the main thread to Dispatch; returns
    /// only through `exit`.
    func run() -> Never {
        watchSignals()
        watchJobControl()
        watchKeyboard()
        startTicking()
        source.start(self)
        paint()
        dispatchMain()
    }

    /// A one-line note in the footer.
    func announce(_ message: String) {
        state.footerMessage = message
        schedulePaint()
    }

    /// One bell per batch at most, and none with `--no-bell`.
    func ringBell() {
        if bellEnabled { screen.bell() }
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
        source.viewChanged()
        schedulePaint()
    }

    /// Called on every key wake-up, every SIGHUP and every tick, so no
    /// moment (a cycle, a reload, a hook starting, a slow query) lets a
    /// dashboard outlive its terminal.
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
            source.refresh()
        case .nextTheme:
            cycleTheme()
        case .copyPins(let index):
            copyPins(ofHost: index)
        case .acknowledge(let index, let until, let reason):
            source.acknowledge(host: index, until: until, reason: reason)
        case .removeAcknowledgement(let index):
            source.removeAcknowledgement(ofHost: index)
        }
    }

    /// A theme that does not load is said, and the current one stays.
    private func cycleTheme() {
        guard !colourless else {
            announce("theme: \(theme.name) (no colour: NO_COLOR is set or the terminal has fewer than 8 colours)")
            return
        }
        let names = ThemeChoice.availableNames(environment: environment)
        let next = ThemeLoader.nextName(after: state.themeName, in: names)
        do {
            theme = try ThemeChoice.named(next, environment: environment)
            state.themeName = theme.name
            announce("theme: \(theme.name)")
        } catch {
            announce("theme \(next): \(error)")
        }
    }

    private func copyPins(ofHost index: Int) {
        guard state.reports.indices.contains(index), let report = state.reports[index],
            let stanza = PinStanza.document(for: source.stanzaReport(report))
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
            source.reload()
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
            self?.source.tick(now: Date())
            self?.schedulePaint()
        }
        tick.resume()
        sources.append(tick)
    }

    // MARK: Painting

    func schedulePaint() {
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
        frameTiming.framePainted(cells: screen.paint(frame, theme: theme))
    }

    private func quit(status: Int32) -> Never {
        // A hook or a query still running must not outlive the dashboard.
        source.stop()
        screen.restore()
        // _exit, not exit: exit's atexit handlers (OpenSSL's global cleanup
        // among them) would run while probe and demo-server threads may
        // still be inside OpenSSL. Nothing is left to save once stdio is
        // flushed.
        fflush(nil)
        _exit(status)
    }
}
