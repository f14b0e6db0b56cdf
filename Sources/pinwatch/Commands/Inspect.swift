import ArgumentParser
import Foundation
import PinwatchCore
import PinwatchMonitor
import PinwatchProbe

import enum PinwatchSystem.ProcessEnvironment

extension Pinwatch {
    /// The live chain of one host with every pin form, ready to paste.
    struct Inspect: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "inspect",
            abstract: "Print a host's live chain level by level with every pin form and a config stanza (text, json).",
            discussion: """
                The chain shown is the verified chain, including the root from the trust store when \
                the server does not send it. The stanza lists intermediates and root under `ca` and the \
                leaf under `leaf`. A proxy from the environment applies as in the dashboard.
                """
        )

        @Argument(help: ArgumentHelp("The host, with an optional port (default 443); [v6]:port for IPv6.", valueName: "host[:port]"))
        var target: String

        @Option(help: "Server name to send (SNI) and to verify (default: the host).")
        var sni: String?

        @Option(help: "Address to dial instead of resolving the host.")
        var connect: String?

        @Option(help: ArgumentHelp("Trust store: `system` or a PEM bundle.", valueName: "system|path"))
        var trust: String = "system"

        @Option(help: ArgumentHelp("Deadline for DNS, connect, proxy and handshake (e.g. 10s, 500ms, 1m).", valueName: "duration"))
        var timeout: String = "10s"

        /// `--timeout` in seconds: a duration as everywhere else, or a bare number of seconds.
        private var timeoutSeconds: TimeInterval? { ConfigDuration.parse(timeout) }

        @Option(help: "Output format: text or json.")
        var format: ListingFormat = .text

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
        }

        func run() throws {
            try reportingFailures {
                let endpoint = try HostPort.validated(target)
                let trustSource: TrustSource
                if trust == "system" {
                    trustSource = .system
                } else {
                    let path = URL(fileURLWithPath: trust).standardizedFileURL.path
                    // Read here first: OpenSSL would block on a FIFO, and a
                    // bundle with no certificate would only fail the probe.
                    do {
                        _ = try CertificateReader.certificates(inFile: path)
                    } catch {
                        throw UserFacingError(message: "--trust \(error)")
                    }
                    trustSource = .bundle(path)
                }
                let host = HostConfig(
                    host: endpoint.host, port: endpoint.port, serverName: sni, connectAddress: connect, trust: trustSource)
                let config = Config(timeout: timeoutSeconds ?? 10, concurrency: 1, hosts: [host])
                let reports = HostPoller(config: config).runCycle()
                guard let report = reports.first else { return }
                switch format {
                case .text:
                    let display = DisplayChoice(ascii: ascii, utc: false, config: nil, environment: ProcessEnvironment.current)
                    Output.standardOutput(display.text(ChainListing.text(report: report)))
                case .json:
                    Output.standardOutput(JSONReport.renderInspectedHost(report) + "\n")
                }
                if report.result.failure != nil, format == .text {
                    throw ExitCode(1)
                }
            }
        }
    }
}
