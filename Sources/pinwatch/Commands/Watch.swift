import ArgumentParser
import Foundation
import PinwatchCore
import PinwatchFleet
import PinwatchTerminal
import PinwatchUI

import enum PinwatchSystem.ProcessEnvironment

extension Pinwatch {
    /// The live dashboard.
    struct Watch: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "watch",
            abstract: "Open the live dashboard (the default command).",
            discussion: """
                Polls every host at once on start, then every interval. Keys: q quit (in details: back), \
                Q/F10 quit from anywhere, r refresh, ↑/↓ j/k PgUp/PgDn g/G move, Enter details, Esc back, \
                / filter (!negates, /REGEX, status:NAME; Ctrl-U clears it), s worst first/config order, < > sort column, \
                I reverse, t theme, y copy pins (in details), ?/F1 help. A terminal that cannot move its cursor \
                (TERM=dumb) is refused; --ascii or a non-UTF-8 locale (LANG=C) draws ASCII only.
                """
        )

        @OptionGroup var options: ConfigOptions

        @Option(
            help: ArgumentHelp("Theme: a name (default, mono, high-contrast, colorblind) or a YAML file.", valueName: "name|path"),
            completion: CompletionChoices.themes)
        var theme: String?

        @Option(
            help: ArgumentHelp(
                "Poll period, overriding the config (e.g. 30s, 5m); with --prometheus, the refresh (default: the exporters' own interval).",
                valueName: "duration"))
        var interval: String?

        @Flag(help: "Do not ring the bell when a host turns leaf_only, blocked or expired.")
        var noBell = false

        @Flag(help: "Leave the mouse to the terminal (no wheel scrolling or click to select).")
        var noMouse = false

        @OptionGroup var history: StateOptions

        @OptionGroup var display: DisplayOptions

        @Option(
            help: ArgumentHelp(
                "Show the fleet's verdicts from this Prometheus server (scraping serve) instead of probing; overrides prometheus:.",
                valueName: "url"))
        var prometheus: String?

        @Option(help: ArgumentHelp("With --prometheus: only series matching these label matchers.", valueName: "selector"))
        var match: String?

        func validate() throws {
            if let interval { _ = try IntervalOption.seconds(interval) }
            if let prometheus, let problem = PrometheusServer.problem(prometheus) { throw ValidationError("--prometheus: \(problem)") }
        }

        func run() throws {
            try reportingFailures {
                try Self.requireTerminal()
                var (config, server) = try configAndFleetSource()
                if let server { try runFleet(config, server: server) }
                let environment = ProcessEnvironment.current
                let chosenTheme = try ThemeChoice.named(theme ?? config.theme, environment: environment)
                let (store, readOnlyNote) = try history.openForWatchingOrReading(config)
                // Beside the serve that holds the store, its hooks are told
                // by it: this dashboard telling them too would page twice.
                let runsHooks = readOnlyNote == nil
                if !runsHooks { config.hooks = [] }
                let hooks = MonitorSource.Hooks(reloadConfig: {
                    var reloaded = try self.loadWithOverrides()
                    if !runsHooks { reloaded.hooks = [] }
                    return reloaded
                })
                let controller = try Self.makeController(
                    config: config, environment: environment, theme: chosenTheme, bell: !noBell, mouse: !noMouse, hooks: hooks,
                    history: store, display: display.choice(config: config, environment: environment))
                // The header's note that another pinwatch holds the store.
                controller.state.historyNote = readOnlyNote
                controller.run()
            }
        }

        /// `--prometheus`, else `prometheus:`: nil to probe locally. With
        /// `--prometheus` a configuration is optional (theme, interval).
        private func configAndFleetSource() throws -> (Config, server: String?) {
            if let prometheus {
                let located = ConfigLocator.locate(
                    explicit: options.config, currentDirectory: FileManager.default.currentDirectoryPath,
                    environment: ProcessEnvironment.current)
                return (located == nil ? Config() : try loadWithOverrides(), prometheus)
            }
            let config = try loadWithOverrides()
            if config.prometheus == nil, match != nil {
                throw UserFacingError(message: "--match needs --prometheus URL or prometheus: in the configuration")
            }
            return (config, config.prometheus)
        }

        private func runFleet(_ config: Config, server: String) throws -> Never {
            guard let url = URL(string: server) else { throw UserFacingError(message: "--prometheus: \(server) is not a URL") }
            // Without --interval the view follows the exporters' own interval.
            let interval = self.interval.flatMap(ConfigDuration.parse)
            let environment = ProcessEnvironment.current
            let chosenTheme = try ThemeChoice.named(theme ?? config.theme, environment: environment)
            let query = FleetQuery(server: url, selector: match, timeout: min(config.timeout, interval ?? config.timeout))
            let source = PrometheusSource(query: query, config: config, interval: interval, environment: environment)
            let state = source.initialState(themeName: chosenTheme.name, display: display.choice(config: config, environment: environment))
            try Self.openDashboard(
                source: source, state: state, environment: environment, theme: chosenTheme, bell: !noBell, mouse: !noMouse
            )
            .run()
        }

        /// The configuration with `--interval` applied, at start and on every reload.
        private func loadWithOverrides() throws -> Config {
            var config = try options.load()
            if let interval, let seconds = ConfigDuration.parse(interval) {
                config.interval = seconds
                if let problem = ConfigLimits.timeoutProblem(config.timeout, interval: seconds) {
                    throw UserFacingError(message: "--interval: \(problem) (lower timeout: in the configuration)")
                }
            }
            return config
        }

        static func requireTerminal() throws {
            let snapshotHint = "for a one-shot report use `pinwatch snapshot --format text|ansi|json`"
            guard TTY.standardOutputIsTerminal, TTY.standardInputIsTerminal else {
                throw UserFacingError(message: "the dashboard needs a terminal; \(snapshotHint)")
            }
            let term = ProcessEnvironment.current["TERM"]
            switch CursorAddressing.of(term: term) {
            case .supported:
                return
            case .unsupported:
                throw UserFacingError(
                    message:
                        "the dashboard needs a terminal that can move its cursor, and TERM=\(EchoedInput.shortened(term ?? "")) cannot; "
                        + snapshotHint)
            case .unknownTerminal:
                let named = term.map { $0.isEmpty ? "TERM is empty" : "TERM=\(EchoedInput.shortened($0)) is not in the terminfo database" }
                throw UserFacingError(
                    message: "the dashboard needs a terminal it knows, and \(named ?? "TERM is not set"); \(snapshotHint)")
            }
        }

        /// The dashboard over the local `Monitor` (`watch`, the demo).
        static func makeController(
            config: Config, environment: [String: String], theme: Theme, bell: Bool, mouse: Bool = true,
            hooks: MonitorSource.Hooks = .init(), history: HostHistoryRecorder?, display: DisplayChoice = DisplayChoice()
        ) throws -> DashboardController {
            let source = try MonitorSource(config: config, environment: environment, hooks: hooks, history: history)
            let state = source.initialState(themeName: theme.name, display: display)
            return try openDashboard(source: source, state: state, environment: environment, theme: theme, bell: bell, mouse: mouse)
        }

        private static func openDashboard(
            source: DashboardSource, state: DashboardState, environment: [String: String], theme: Theme, bell: Bool, mouse: Bool
        ) throws -> DashboardController {
            do {
                return try DashboardController(
                    source: source, state: state, environment: environment, theme: theme, bell: bell, mouse: mouse)
            } catch {
                throw UserFacingError(message: "cannot start the dashboard: \(error)")
            }
        }
    }
}
