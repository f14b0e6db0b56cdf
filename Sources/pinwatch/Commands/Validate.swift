import ArgumentParser
import Foundation
import PinwatchCore
import PinwatchMonitor

extension Pinwatch {
    /// Checks a configuration without probing anything.
    struct Validate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "validate",
            abstract: "Check the configuration and exit: 0 when valid, 1 when it has no hosts, 2 with one line per problem.",
            discussion: """
                A valid configuration with no hosts (an emptied or truncated file) exits 1 with a warning, \
                as it would monitor nothing; --allow-empty accepts it. A silence: whose until has passed \
                is warned of too (exit 1). --errors-only turns the warnings' exit 1 into 0 (they are still \
                printed): a service's start check, which only an error in the file should stop, runs it so.
                """)

        @OptionGroup var options: ConfigOptions

        @Flag(name: .customLong("allow-empty"), help: "Accept a configuration with no hosts (exit 0, no warning).")
        var allowEmpty = false

        @Flag(
            name: .customLong("errors-only"),
            help: "Exit 0 when the only findings are warnings (still printed); 2 on an error, as without it.")
        var errorsOnly = false

        func run() throws {
            try reportingFailures {
                let config = try options.load()
                let name = config.path ?? "configuration"
                let hooks = config.hooks.isEmpty ? "" : ", \(config.hooks.count) hook\(config.hooks.count == 1 ? "" : "s")"
                let clients = config.clients.isEmpty ? "" : ", \(config.clients.count) client\(config.clients.count == 1 ? "" : "s")"
                // The list is read as watch and serve will read it: a list
                // that stops them is an error here.
                var logs = ""
                if let list = config.ct?.logList {
                    let count: Int
                    do {
                        count = try CTFollowing.readList(list).count
                    } catch {
                        throw UserFacingError(message: "\(error)")
                    }
                    logs = ", \(count) Certificate Transparency log\(count == 1 ? "" : "s")"
                }
                Output.standardOutput(
                    "\(name): valid, \(config.hosts.count) host\(config.hosts.count == 1 ? "" : "s")\(clients)\(hooks)\(logs)\n")
                let expiredSilences = ExpiredSilences.warnings(config, now: Date())
                for warning in expiredSilences { Output.standardError("pinwatch: warning: \(warning)") }
                if config.hosts.isEmpty && !allowEmpty {
                    Output.standardError("pinwatch: warning: \(name) has no hosts: nothing would be monitored (--allow-empty to accept)")
                    if !errorsOnly { throw ExitCode(1) }
                }
                if !expiredSilences.isEmpty && !errorsOnly { throw ExitCode(1) }
            }
        }
    }
}
