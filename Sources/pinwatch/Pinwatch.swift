import ArgumentParser
import Foundation
import PinwatchCore

/// The root command: with no subcommand it opens the dashboard.
struct Pinwatch: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pinwatch",
        abstract: "Watch live TLS chains against the public-key pins your shipped clients carry.",
        discussion: """
            pinwatch warns before a pinned client breaks: above all when only the leaf tier \
            still matches, so the client works today and fails at the next leaf renewal.

            Configuration is read from --config PATH, ./pinwatch.yaml, or \
            $XDG_CONFIG_HOME/pinwatch/config.yaml (default ~/.config/pinwatch/config.yaml).

            Exit codes: 0 the command ran, 2 usage or configuration error, 1 unexpected failure; \
            `check` uses the Nagios codes 0/1/2/3.
            """,
        version: PinwatchVersion.current,
        subcommands: [
            Watch.self, Snapshot.self, Check.self, Serve.self, History.self, Validate.self, Inspect.self, PinFiles.self, Demo.self,
        ],
        defaultSubcommand: Watch.self
    )
}

/// Usage errors exit with 2 (DESIGN §7), where ArgumentParser would use 64.
@main
enum Entry {
    static func main() {
        do {
            var command = try Pinwatch.parseAsRoot()
            try command.run()
        } catch {
            if Pinwatch.exitCode(for: error) == .validationFailure {
                let message = Pinwatch.fullMessage(for: error)
                Output.standardError(message)
                // `check` speaks Nagios even about its own usage: 2 would read
                // as CRITICAL and page someone for a typo in a command line.
                if CommandLine.arguments.dropFirst().first == "check" {
                    let outcome = CheckReport.unknown("usage: " + message)
                    Output.standardOutput(outcome.text)
                    exit(outcome.exitCode)
                }
                exit(2)
            }
            Pinwatch.exit(withError: error)
        }
    }
}
