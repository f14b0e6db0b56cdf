import ArgumentParser
import Foundation
import PinwatchCore
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
                / filter (Ctrl-U clears it), s sort, t theme, y copy pins (in details), ?/F1 help.
                """
        )

        @OptionGroup var options: ConfigOptions

        @Option(help: ArgumentHelp("Theme: a name (default, mono, high-contrast, colorblind) or a YAML file.", valueName: "name|path"))
        var theme: String?

        @Option(help: ArgumentHelp("Poll period, overriding the config (e.g. 30s, 5m).", valueName: "duration"))
        var interval: String?

        @Flag(help: "Do not ring the bell when a host turns leaf_only, blocked or expired.")
        var noBell = false

        @Flag(help: "Leave the mouse to the terminal (no wheel scrolling or click to select).")
        var noMouse = false

        @OptionGroup var history: StateOptions

        func validate() throws {
            if let interval { _ = try IntervalOption.seconds(interval) }
        }

        func run() throws {
            try reportingFailures {
                try Self.requireTerminal()
                let config = try loadWithOverrides()
                let environment = ProcessEnvironment.current
                let chosenTheme = try ThemeChoice.load(requested: theme, config: config, colorCount: 256, environment: environment)
                let hooks = DashboardController.Hooks(reloadConfig: { try self.loadWithOverrides() })
                let store = try history.openForWatching(config)
                let controller = try Self.makeController(
                    config: config, environment: environment, theme: chosenTheme, bell: !noBell, mouse: !noMouse, hooks: hooks,
                    history: store)
                controller.run()
            }
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
            guard TTY.standardOutputIsTerminal, TTY.standardInputIsTerminal else {
                throw UserFacingError(
                    message: "the dashboard needs a terminal; for a one-shot report use `pinwatch snapshot --format text|ansi|json`")
            }
        }

        static func makeController(
            config: Config, environment: [String: String], theme: Theme, bell: Bool, mouse: Bool = true,
            hooks: DashboardController.Hooks = .init(), history: HostHistoryRecorder?
        ) throws -> DashboardController {
            do {
                return try DashboardController(
                    config: config, environment: environment, theme: theme, bellEnabled: bell, mouse: mouse, hooks: hooks,
                    history: history)
            } catch {
                throw UserFacingError(message: "cannot start the dashboard: \(error)")
            }
        }
    }
}
