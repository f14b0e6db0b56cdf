import ArgumentParser
import Foundation
import PinwatchCore
import PinwatchMonitor

import enum PinwatchSystem.ProcessEnvironment

extension Pinwatch {
    /// A Nagios/Icinga plugin: the library returns the findings, this command
    /// turns them into the plugin's output and exit code.
    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Run one poll cycle as a Nagios/Icinga plugin.",
            discussion: """
                Prints one status line naming the worst hosts and why, with perfdata, then one line per \
                host that needs attention. Exit codes follow each host's severity: 0 OK, 1 WARNING \
                (leaf_only, expiring), 2 CRITICAL (blocked, expired, critical_expiry, intercepted), \
                3 UNKNOWN (a host could not be probed, no hosts configured, or a usage or configuration \
                error). The worst wins in the order CRITICAL > UNKNOWN > WARNING > OK. A host whose \
                problem is acknowledged (silence: in the configuration, or a in the dashboard, read from \
                the history store) does not set the state; the first line counts it as acknowledged.
                """
        )

        // Not ConfigOptions: its `-c` is the configuration, here `-c` is the
        // critical threshold monitoring plugins all take (a path still works).
        @Option(name: .customLong("config"), help: ArgumentHelp("Configuration file.", valueName: "path"), completion: .file())
        var config: String?

        @Option(
            name: [.customShort("w"), .customLong("warning")],
            help: ArgumentHelp("WARNING when a certificate expires within this many days; overrides warn_days.", valueName: "days"))
        var warning: Int?

        @Option(
            name: [.customShort("c"), .customLong("critical")],
            help: ArgumentHelp(
                "CRITICAL when a certificate expires within this many days; overrides critical_days. "
                    + "`-c PATH` (not a number) is still the configuration file.", valueName: "days"))
        var critical: [String] = []

        @Option(
            name: .customLong("host"),
            help: ArgumentHelp(
                "Check only this host of the configuration (one service per host, its own perfdata).", valueName: "name[:port]"))
        var host: String?

        @Option(
            name: .customLong("connect"),
            help: ArgumentHelp(
                "With --host: of several entries of one name and port, the one dialled at this address (its connect:), "
                    + "as the row NAME:PORT→ADDRESS names it.", valueName: "address"))
        var connect: String?

        @Option(
            name: .customLong("timeout"),
            help: ArgumentHelp("Timeout of each probe (10s, 500ms); overrides timeout:.", valueName: "duration"))
        var timeout: String?

        @Option(
            help: ArgumentHelp(
                "Watch only shard I of N (0 ≤ I < N), by a stable hash of each host; overrides shard: in the config.",
                valueName: "I/N"))
        var shard: String?

        @OptionGroup var history: StateOptions

        @Option(
            name: .customLong("client"),
            help: ArgumentHelp(
                "Judge only what this client release (a name under clients:) sees on the hosts it pins.", valueName: "name"))
        var client: String?

        @Flag(help: "Print the symbols in ASCII (also chosen by a locale that is not UTF-8, e.g. LANG=C).")
        var ascii = false

        func validate() throws {
            if let shard, let problem = Shard.problem(shard) {
                throw ValidationError("--shard \(problem)")
            }
            if config != nil, let path = critical.first(where: { Int($0) == nil }) {
                throw ValidationError("--critical \(path) is not a number of days")
            }
        }

        func run() throws {
            var overrides = CheckOverrides(host: host, connect: connect, warningDays: warning, timeout: timeout)
            // Every `-c` is kept, so `-c PATH -c 5` reads as the plain reader reads it.
            overrides.criticalDays = critical.compactMap { Int($0) }.last
            let configPath = config ?? critical.last { Int($0) == nil }
            try Self.run(
                CheckCommandLine(
                    config: configPath, shard: shard, state: history.state, client: client, overrides: overrides, ascii: ascii))
        }

        /// A plugin that cannot run says UNKNOWN, as monitoring systems
        /// expect, in its one line. A problem with check's own options
        /// (`--host`, thresholds, `--client`) is that line alone, not said
        /// again on a terminal that shows both streams.
        private static func unknown(_ message: String, display: DisplayChoice, alsoOnStandardError: Bool = false) throws -> Never {
            let outcome = CheckReport.unknown(message)
            Output.standardOutput(display.text(outcome.text))
            if alsoOnStandardError { Output.standardError("pinwatch: \(message)") }
            throw ExitCode(outcome.exitCode)
        }

        /// The run on plain values: `Entry` calls it directly for the lines
        /// `CheckCommandLine` reads, without ArgumentParser's types.
        static func run(_ line: CheckCommandLine) throws {
            let display = DisplayChoice(ascii: line.ascii, utc: false, config: nil, environment: ProcessEnvironment.current)
            var config: Config
            let store: HostHistoryRecorder?
            do {
                config = try ConfigOptions.load(explicit: line.config, shard: line.shard)
                // Quiet when a watch holds the store: a plugin's output is its status.
                store = try StateOptions.openForOneShot(config, override: line.state, note: nil)
            } catch let failure as UserFacingError {
                // The program's own error, on standard error as every
                // command says it, and the plugin's UNKNOWN line.
                try unknown(failure.message, display: display, alsoOnStandardError: true)
            }
            if let problem = line.overrides.apply(to: &config) { try unknown(problem, display: display) }
            let client = line.client
            if let client, let problem = ClientSelection.problem(client, in: config) { try unknown(problem, display: display) }
            let acknowledgements = AcknowledgementLedger.reading(config, override: line.state)
            let ct: CTFollowing?
            do {
                ct = try CTRuntime.steppedOnce(config, history: store)
            } catch let failure as UserFacingError {
                try unknown(failure.message, display: display, alsoOnStandardError: true)
            }
            var reports = HostPoller(config: config, history: store, acknowledgements: acknowledgements, ct: ct).runCycle()
            if let client { reports = ClientSelection.reports(of: client, in: reports, now: Date()) }
            let outcome = CheckReport.render(
                reports, warnDays: config.warnDays, criticalDays: config.criticalDays, nextChains: client != nil)
            Output.standardOutput(display.text(outcome.text.hasSuffix("\n") ? outcome.text : outcome.text + "\n"))
            throw ExitCode(outcome.exitCode)
        }
    }
}
