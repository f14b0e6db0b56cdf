import ArgumentParser
import Foundation
import PinwatchCore
import PinwatchMonitor

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
                error). The worst wins in the order CRITICAL > UNKNOWN > WARNING > OK.
                """
        )

        @OptionGroup var options: ConfigOptions

        @OptionGroup var history: StateOptions

        @Option(
            name: .customLong("client"),
            help: ArgumentHelp(
                "Judge only what this client release (a name under clients:) sees on the hosts it pins.", valueName: "name"))
        var client: String?

        func run() throws {
            try Self.run(CheckCommandLine(config: options.config, shard: options.shard, state: history.state, client: client))
        }

        /// The run on plain values: `Entry` calls it directly for the lines
        /// `CheckCommandLine` reads, without ArgumentParser's types.
        static func run(_ line: CheckCommandLine) throws {
            let config: Config
            let store: HostHistoryRecorder?
            do {
                config = try ConfigOptions.load(explicit: line.config, shard: line.shard)
                // Quiet when a watch holds the store: a plugin's output is its status.
                store = try StateOptions.openForOneShot(config, override: line.state, note: nil)
            } catch let failure as UserFacingError {
                // A plugin that cannot run says UNKNOWN, as monitoring systems expect.
                let outcome = CheckReport.unknown(failure.message)
                Output.standardOutput(outcome.text)
                Output.standardError("pinwatch: \(failure.message)")
                throw ExitCode(outcome.exitCode)
            }
            let client = line.client
            if let client, let problem = ClientSelection.problem(client, in: config) {
                let outcome = CheckReport.unknown(problem)
                Output.standardOutput(outcome.text)
                Output.standardError("pinwatch: \(problem)")
                throw ExitCode(outcome.exitCode)
            }
            var reports = HostPoller(config: config, history: store).runCycle()
            if let client { reports = ClientSelection.reports(of: client, in: reports) }
            let outcome = CheckReport.render(
                reports, warnDays: config.warnDays, criticalDays: config.criticalDays, nextChains: client != nil)
            Output.standardOutput(outcome.text.hasSuffix("\n") ? outcome.text : outcome.text + "\n")
            throw ExitCode(outcome.exitCode)
        }
    }
}
