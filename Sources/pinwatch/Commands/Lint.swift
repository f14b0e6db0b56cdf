import ArgumentParser
import Foundation
import PinwatchCore
import PinwatchMonitor

extension Pinwatch {
    /// Checks the clients' pins against the live chains.
    struct Lint: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "lint",
            abstract: "Check the clients' pins against the live chains: backups, leaf-only sets, expirations (text, json).",
            discussion: """
                Reads clients: from the configuration, probes every host once, and prints one line per \
                finding: a pin set without a backup pin, one whose only match is the leaf, pins that \
                match nothing, expirations passed or within warn_days, includeSubdomains covering no \
                monitored host, and what the sources say of themselves (a TrustKit domain with one hash, \
                SHA-1 pins, badly signed list entries), and the pinned hosts that could not be probed. A \
                release that refuses a host now is an error, listed first. Exit 0 when there is no error or \
                warning, 1 with warnings, 2 for a configuration error, 3 when no host a client pins could be \
                probed (nothing was checked), 4 when a release refuses a host now.
                """
        )

        @OptionGroup var options: ConfigOptions

        enum Format: String, ExpressibleByArgument, CaseIterable {
            case text, json
        }

        @Option(help: ArgumentHelp("text (one line per finding) or json (one document, for CI).", valueName: "format"))
        var format: Format = .text

        func run() throws {
            try reportingFailures {
                let config = try options.load()
                guard !config.clients.isEmpty else {
                    throw UserFacingError(message: "\(config.path ?? "the configuration") has no clients: (see `pinwatch import --help`)")
                }
                for warning in ExpiredSilences.warnings(config, now: Date()) { Output.standardError("pinwatch: warning: \(warning)") }
                let reports = HostPoller(config: config).runCycle()
                let findings = ClientLint.findings(config: config, reports: reports, now: Date())
                let errors = findings.filter { $0.level == .error }.count
                let warnings = findings.filter { $0.level == .warning }.count
                let nothingChecked = ClientLint.checkedHostCount(reports) == 0
                // Worst first: a release refusing a host now outranks
                // having checked little, and both outrank warnings.
                let exitCode: Int32 = errors > 0 ? 4 : nothingChecked ? 3 : warnings > 0 ? 1 : 0
                if format == .json {
                    Output.standardOutput(
                        LintJSON.render(findings, clients: config.clients.count, hosts: reports.count, nothingChecked: nothingChecked))
                    if exitCode != 0 { throw ExitCode(exitCode) }
                    return
                }
                var lines = findings.map(\.text)
                let notes = findings.count - errors - warnings
                lines.append(
                    "\(config.clients.count) client\(config.clients.count == 1 ? "" : "s"), \(reports.count) host\(reports.count == 1 ? "" : "s"): "
                        + "\(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s"), "
                        + "\(notes) note\(notes == 1 ? "" : "s")"
                )
                if nothingChecked {
                    lines.append("nothing checked: no host the clients pin could be probed")
                }
                Output.standardOutput(lines.joined(separator: "\n") + "\n")
                if exitCode != 0 { throw ExitCode(exitCode) }
            }
        }
    }
}
