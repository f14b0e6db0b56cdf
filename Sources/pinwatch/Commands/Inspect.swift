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
                """
        )

        @Argument(help: ArgumentHelp("The host, with an optional port (default 443); [v6]:port for IPv6.", valueName: "host[:port]"))
        var target: String

        @Option(help: "Server name to send (SNI) and to verify (default: the host).")
        var sni: String?

        @Option(help: "Address to dial instead of resolving the host.")
        var connect: String?

        @Option(help: ArgumentHelp("Trust store: `system` or a PEM bundle.", valueName: "system|path"), completion: .file())
        var trust: String = "system"

        @Option(help: ArgumentHelp("Deadline for DNS, connect, proxy and handshake (e.g. 10s, 500ms, 1m).", valueName: "duration"))
        var timeout: String = "10s"

        /// `--timeout` in seconds: a duration as everywhere else, or a bare number of seconds.
        private var timeoutSeconds: TimeInterval? { ConfigDuration.parse(timeout) }

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
            let endpoint = try HostPort.validated(target)
            for (option, value) in [("host", endpoint.host), ("--sni", sni), ("--connect", connect)] {
                if let value, let problem = HostNameCheck.problem(value) {
                    throw ValidationError("\(option): \(problem)")
                }
            }
            guard let seconds = timeoutSeconds, seconds >= ConfigLimits.minimumTimeout, seconds <= 600 else {
                throw ValidationError("--timeout must be a duration from 10ms to 10m (e.g. 10s, 500ms), not \(EchoedInput.quoted(timeout))")
            }
            if !(20...1000).contains(width) {
                throw ValidationError("--width must be between 20 and 1000 columns")
            }
        }

        func run() throws {
            try reportingFailures {
                let endpoint = try HostPort.validated(target)
                let trustSource = try TrustOption.source(trust)
                let host = HostConfig(
                    host: endpoint.host, port: endpoint.port, serverName: sni, connectAddress: connect, trust: trustSource)
                let config = Config(timeout: timeoutSeconds ?? 10, concurrency: 1, hosts: [host])
                // A bad theme must not cost a probe.
                let pictureTheme =
                    format == .svg || format == .html ? try ThemeChoice.load(requested: theme, config: nil, colorCount: 256) : nil
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
            dashboard.record(cycle: [recordedHistory(of: report, now: now)], at: now)
            dashboard.stanzaText = PinStanza.document(for: report)
            let frame = DashboardLayout.detailSnapshotFrame(for: dashboard, hostIndex: 0, width: width, now: now)
            let title = "pinwatch inspect \(report.config.displayName) \(DateText.iso8601(now))"
            switch format {
            case .svg: Output.standardOutput(PictureRenderer.svg(frame, theme: theme, title: title))
            default: Output.standardOutput(PictureRenderer.html(frame, theme: theme, title: title))
            }
        }

        /// The report with what the history store holds of its host; a
        /// store that cannot be read leaves the picture without history,
        /// said on stderr only when --state named it.
        private func recordedHistory(of report: HostReport, now: Date) -> HostReport {
            do {
                guard let store = try HistoryStore.open(.automatic, override: state, historyDays: 400, mode: .reader) else {
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
