import ArgumentParser
import Foundation
import PinwatchCore
import PinwatchFleet
import PinwatchMonitor
import PinwatchSystem
import PinwatchUI

extension Pinwatch {
    /// One poll cycle rendered once: the dashboard's own Frame for runbooks,
    /// or the versioned JSON for scripts.
    struct Snapshot: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "snapshot",
            abstract: "Run one poll cycle and print it once: the dashboard screen (text, ansi, svg, html) or data (json, prometheus).",
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

        @Option(
            help: ArgumentHelp("Theme for ansi: a name or a path to a YAML file.", valueName: "name|path"),
            completion: CompletionChoices.themes)
        var theme: String?

        @Option(
            help: ArgumentHelp(
                "Read the fleet's verdicts from this Prometheus server instead of probing (text, ansi, svg, html, json).",
                valueName: "url"))
        var prometheus: String?

        @Option(help: ArgumentHelp("With --prometheus: only series matching these label matchers.", valueName: "selector"))
        var match: String?

        func validate() throws {
            if let prometheus, let problem = PrometheusServer.problem(prometheus) { throw ValidationError("--prometheus: \(problem)") }
            if prometheus != nil, output.format == .prometheus {
                throw ValidationError("--prometheus reads the fleet from Prometheus: use --format text, ansi, svg, html or json")
            }
            if match != nil, prometheus == nil { throw ValidationError("--match needs --prometheus") }
        }

        func run() throws {
            try reportingFailures {
                if let prometheus {
                    try printFleet(from: prometheus)
                    return
                }
                let config = try options.load()
                // Load the theme before probing: a bad theme must not cost a
                // cycle. Only ansi uses it, so text and json never fail on one.
                let chosenTheme =
                    output.format.usesTheme
                    ? try ThemeChoice.load(requested: theme, config: config, colorCount: 256)
                    : ThemeLoader.mono
                let store = try history.openForOneShot(config) { Output.standardError($0) }
                try output.printCycle(
                    config: config, environment: ProcessEnvironment.current, theme: chosenTheme, history: store,
                    acknowledgements: AcknowledgementLedger.reading(config, override: history.state))
            }
        }

        /// The fleet read from Prometheus in chunks of hosts, drawn as the
        /// fleet dashboard's screen or written as JSON; a server that
        /// cannot answer is an error, not an empty picture.
        private func printFleet(from server: String) throws {
            guard let url = URL(string: server) else { throw UserFacingError(message: "--prometheus: \(server) is not a URL") }
            let located = ConfigLocator.locate(
                explicit: options.config, currentDirectory: FileManager.default.currentDirectoryPath,
                environment: ProcessEnvironment.current)
            let config = located == nil ? Config() : try options.load()
            let chosenTheme =
                output.format.usesTheme ? try ThemeChoice.load(requested: theme, config: config, colorCount: 256) : ThemeLoader.mono
            let fleet: FleetSnapshot
            // The answer is not held past the switch: its rows go once they are reports.
            let contents: FleetSnapshotQuery.Contents = output.format == .json ? .document : .table
            switch readFleet(FleetSnapshotQuery(server: url, selector: match, timeout: config.timeout, contents: contents)) {
            case .failure(let problem): throw UserFacingError(message: problem.description, code: 1)
            case .success(let read): fleet = read
            }
            let now = Date()
            if output.format == .json {
                Output.streamJSON(fleet, generatedAt: now)
                return
            }
            var state = DashboardState(configPath: server, hosts: [], themeName: chosenTheme.name)
            output.display.choice(config: config, environment: ProcessEnvironment.current).apply(to: &state)
            var view = FleetView(server: server, oneAnswer: true)
            let nothing = fleet.hosts.isEmpty
            // What the reading threads freed goes back before the reports are made.
            FreedMemory.release()
            // The rows become the state's reports: not kept here beside them.
            _ = view.show(consume fleet, on: &state, config: config, at: now)
            if nothing {
                state.sourceProblem = FleetView.nothingMatches(FleetQuery(server: url, selector: match, timeout: config.timeout))
            }
            state.sourceNote = view.note(for: state, now: now)
            SnapshotOutput.printScreen(state, format: output.format, width: output.width, theme: chosenTheme, now: now)
        }

        /// The fleet, its rows counted on stderr as they come in when that is
        /// a terminal: a fleet of 100,000 hosts takes tens of seconds. The
        /// line is erased once they are all in.
        private func readFleet(_ query: FleetSnapshotQuery) -> Result<FleetSnapshot, FleetQueryProblem> {
            guard TTY.standardErrorIsTerminal else { return query.read() }
            let read = query.read { Output.progress(Snapshot.progressLine($0)) }
            Output.progress(nil)
            return read
        }

        /// `pinwatch: reading the fleet from Prometheus: 12000 of 100000 rows`.
        static func progressLine(_ progress: FleetReadProgress) -> String {
            let of = progress.counted > 0 ? " of \(progress.counted)" : ""
            return "pinwatch: reading the fleet from Prometheus: \(progress.rows)\(of) rows"
        }

        /// The machine-format lines `SnapshotCommandLine` reads, without
        /// ArgumentParser's types; the same steps as `run()`.
        static func run(_ line: SnapshotCommandLine) throws {
            try reportingFailures {
                let config = try ConfigOptions.load(explicit: line.config, shard: line.shard)
                let store = try StateOptions.openForOneShot(config, override: line.state) { Output.standardError($0) }
                let format: SnapshotFormat = line.format == .json ? .json : .prometheus
                try SnapshotOutput.printCycle(
                    format: format, width: nil, config: config, environment: ProcessEnvironment.current, theme: ThemeLoader.mono,
                    history: store, acknowledgements: AcknowledgementLedger.reading(config, override: line.state))
            }
        }
    }
}
