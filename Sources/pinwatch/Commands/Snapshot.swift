import ArgumentParser
import Foundation
import PinwatchCore
import PinwatchSystem
import PinwatchUI

extension Pinwatch {
    /// One poll cycle rendered once: the dashboard's own Frame for runbooks,
    /// or the versioned JSON for scripts.
    struct Snapshot: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "snapshot",
            abstract: "Run one poll cycle and print it once: the dashboard screen (text, ansi) or data (json).",
            discussion: """
                text is the dashboard's screen without escape sequences (for runbooks and tickets); \
                ansi is the same with the theme's colours; json is a versioned document (version 1, \
                hosts in configuration order, each with its status, severity, reason and chain; \
                see the README).
                """
        )

        @OptionGroup var options: ConfigOptions

        @OptionGroup var output: SnapshotOutput

        @OptionGroup var history: StateOptions

        @Option(help: ArgumentHelp("Theme for ansi: a name or a path to a YAML file.", valueName: "name|path"))
        var theme: String?

        func run() throws {
            try reportingFailures {
                let config = try options.load()
                // Load the theme before probing: a bad theme must not cost a
                // cycle. Only ansi uses it, so text and json never fail on one.
                let chosenTheme =
                    output.format.usesTheme
                    ? try ThemeChoice.load(requested: theme, config: config, colorCount: 256)
                    : ThemeLoader.mono
                let store = try history.openForOneShot(config) { Output.standardError($0) }
                output.printCycle(config: config, environment: ProcessEnvironment.current, theme: chosenTheme, history: store)
            }
        }

        /// The machine-format lines `SnapshotCommandLine` reads, without
        /// ArgumentParser's types; the same steps as `run()`.
        static func run(_ line: SnapshotCommandLine) throws {
            try reportingFailures {
                let config = try ConfigOptions.load(explicit: line.config, shard: line.shard)
                let store = try StateOptions.openForOneShot(config, override: line.state) { Output.standardError($0) }
                let format: SnapshotFormat = line.format == .json ? .json : .prometheus
                SnapshotOutput.printCycle(
                    format: format, width: nil, config: config, environment: ProcessEnvironment.current, theme: ThemeLoader.mono,
                    history: store)
            }
        }
    }
}
