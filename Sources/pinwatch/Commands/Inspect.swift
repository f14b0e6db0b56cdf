import ArgumentParser
import Foundation
import PinwatchCore
import PinwatchHistory
import PinwatchMonitor
import PinwatchProbe
import PinwatchSystem
import PinwatchUI

import enum PinwatchSystem.ProcessEnvironment

extension Pinwatch {
    /// The live chain of one host with every pin form, ready to paste.
    struct Inspect: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "inspect",
            abstract: "Print a host's live chain level by level with every pin form and a config stanza (text, json, svg, html).",
            discussion: """
                The chain shown is the verified chain, including the root from the trust store when \
                the server does not send it. The stanza lists intermediates and root under `ca` and the \
                leaf under `leaf`. A proxy from the environment applies as in the dashboard.

                svg and html draw the dashboard's detail view of the host as a standalone picture for a \
                runbook: status, trust, the history a watch, serve, snapshot or check recorded for the same \
                host, port, SNI and connect address (read only), the chain with its pins, the next chains \
                and the stanza.

                With --config the host is the configured entry of that name (host:port as the table shows \
                it when several share the name): its pins, pin set, SNI, connect address, trust, STARTTLS, \
                clients and timeout decide the verdict, and the history is read from its state: store.
                """
        )

        @Argument(help: ArgumentHelp("The host, with an optional port (default 443); [v6]:port for IPv6.", valueName: "host[:port]"))
        var target: String

        @Option(help: "Server name to send (SNI) and to verify (default: the host).")
        var sni: String?

        @Option(help: "Address to dial instead of resolving the host.")
        var connect: String?

        @Option(help: ArgumentHelp("Trust store: `system` (the default) or a PEM bundle.", valueName: "system|path"), completion: .file())
        var trust: String?

        @Option(
            help: ArgumentHelp(
                "Deadline for DNS, connect, proxy and handshake (e.g. 10s, 500ms, 1m; default 10s, or timeout: with --config).",
                valueName: "duration"))
        var timeout: String?

        @Option(
            name: .shortAndLong,
            help: ArgumentHelp("Judge the host as configured in this file: its pins, SNI, connect, trust and clients.", valueName: "path"),
            completion: .file())
        var config: String?

        /// `--timeout` in seconds: a duration as everywhere else, or a bare number of seconds.
        private var timeoutSeconds: TimeInterval? { timeout.map(ConfigDuration.parse) ?? 10 }

        @Option(help: "Output format: text, json, or svg and html (the detail view as a standalone picture).")
        var format: InspectFormat = .text

        @Option(help: ArgumentHelp("Theme of the svg/html picture: a built-in name or a file.", valueName: "name|path"))
        var theme: String?

        @Option(help: ArgumentHelp("Width of the svg/html picture in columns (default 120).", valueName: "columns"))
        var width: Int = 120

        @Option(
            help: ArgumentHelp(
                "History store the svg/html picture reads the host's timeline from, or off "
                    + "(default $XDG_STATE_HOME/pinwatch/state.sqlite); inspect records nothing.",
                valueName: "path|off"))
        var state: String?

        enum InspectFormat: String, ExpressibleByArgument, CaseIterable {
            case text, json, svg, html
        }

        @Flag(help: "Print the symbols in ASCII (also chosen by a locale that is not UTF-8, e.g. LANG=C).")
        var ascii = false

        func validate() throws {
            // With --config the target is a configured entry's name, as the table spells it.
            if config == nil {
                let endpoint = try HostPort.validated(target)
                for (option, value) in [("host", endpoint.host), ("--sni", sni), ("--connect", connect)] {
                    if let value, let problem = HostNameCheck.problem(value) {
                        throw ValidationError("\(option): \(problem)")
                    }
                }
            }
            guard let seconds = timeoutSeconds, seconds >= ConfigLimits.minimumTimeout, seconds <= 600 else {
                throw ValidationError(
                    "--timeout must be a duration from 10ms to 10m (e.g. 10s, 500ms), not \(EchoedInput.quoted(timeout ?? ""))")
            }
            if config != nil {
                // One source for each fact: the configured entry is what is judged.
                for (option, value) in [("--sni", sni), ("--connect", connect), ("--trust", trust)] where value != nil {
                    throw ValidationError("\(option) comes from the configured host with --config: leave it out, or drop --config")
                }
            }
            if !(20...1000).contains(width) {
                throw ValidationError("--width must be between 20 and 1000 columns")
            }
        }

        func run() throws {
            try reportingFailures {
                let config = try inspectedConfig()
                // A bad theme must not cost a probe.
                let pictureTheme =
                    format == .svg || format == .html
                    ? try ThemeChoice.load(requested: theme, config: self.config == nil ? nil : config, colorCount: 256) : nil
                let reports = HostPoller(config: config).runCycle()
                guard let report = reports.first else { return }
                switch format {
                case .text:
                    let display = DisplayChoice(ascii: ascii, utc: false, config: nil, environment: ProcessEnvironment.current)
                    Output.standardOutput(display.text(ChainListing.text(report: report)))
                case .json:
                    Output.standardOutput(JSONReport.renderInspectedHost(report) + "\n")
                case .svg, .html:
                    printPicture(of: report, config: config, theme: pictureTheme ?? ThemeLoader.mono)
                }
                if report.result.failure != nil, format == .text {
                    throw ExitCode(1)
                }
            }
        }

        /// The dashboard's detail view of the host, with its stanza shown
        /// as after `y`, drawn by the snapshot's picture renderer.
        private func printPicture(of report: HostReport, config: Config, theme: Theme) {
            let now = Date()
            var dashboard = DashboardState.make(config: config, environment: ProcessEnvironment.current, themeName: theme.name)
            dashboard.record(cycle: [recordedHistory(of: report, config: config, now: now)], at: now)
            dashboard.stanzaText = PinStanza.document(for: report)
            Output.standardOutput(
                SnapshotScreen.renderDetail(
                    dashboard, hostIndex: 0, format: format == .svg ? .svg : .html, width: width, theme: theme, now: now))
        }

        /// One host to probe: from the command line, or with --config the
        /// configured entry `target` names, chosen as `check --host` chooses.
        private func inspectedConfig() throws -> Config {
            guard let path = self.config else {
                let endpoint = try HostPort.validated(target)
                let host = HostConfig(
                    host: endpoint.host, port: endpoint.port, serverName: sni, connectAddress: connect,
                    trust: try TrustOption.source(trust ?? "system"))
                return Config(timeout: timeoutSeconds ?? 10, concurrency: 1, hosts: [host])
            }
            var loaded = try ConfigOptions.load(explicit: path, shard: nil)
            let chosen = CheckOverrides.hosts(named: target, in: loaded.hosts)
            let file = loaded.path ?? path
            guard !chosen.isEmpty else {
                let names =
                    loaded.hosts.prefix(10).map(\.displayName) + (loaded.hosts.count > 10 ? ["+\(loaded.hosts.count - 10) more"] : [])
                throw UserFacingError(
                    message: "inspect: \(EchoedInput.quoted(target)) is not a host of \(file)"
                        + (names.isEmpty ? " (it has none)" : "; its hosts: \(names.joined(separator: ", "))"))
            }
            guard chosen.count == 1 else {
                throw UserFacingError(
                    message: "inspect: \(EchoedInput.quoted(target)) names \(chosen.count) hosts of \(file) "
                        + "(\(chosen.map(\.displayName).joined(separator: ", "))): write one as the table shows it")
            }
            loaded.hosts = chosen
            loaded.concurrency = 1
            if timeout != nil, let seconds = timeoutSeconds { loaded.timeout = seconds }
            return loaded
        }

        /// The report with what the history store holds of its host; a
        /// store that cannot be read leaves the picture without history,
        /// said on stderr only when --state named it.
        private func recordedHistory(of report: HostReport, config: Config, now: Date) -> HostReport {
            do {
                guard
                    let store = try HistoryStore.open(
                        self.config == nil ? .automatic : config.state, override: state,
                        historyDays: self.config == nil ? 400 : config.historyDays, mode: .reader)
                else {
                    return report
                }
                return try store.recordedHistory(of: report, now: now)
            } catch {
                if state != nil { Output.standardError("pinwatch: history not shown: \(error)") }
                return report
            }
        }
    }
}
