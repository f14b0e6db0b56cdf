import ArgumentParser
import Foundation
import PinwatchCore
import PinwatchMonitor

extension Pinwatch {
    /// A first configuration from the live chains of the hosts named.
    struct Init: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "init",
            abstract: "Write a first configuration from the live chains of HOST[:PORT]…, with their CA-tier pins.",
            discussion: """
                Probes every host once and writes one entry each with the SPKI pins of the live chain's \
                intermediates and root (the CA tier). These are the pins the hosts serve today, not the ones \
                your apps carry: every pin block says so; `pinwatch import` reads an app's pins.

                The file is ./pinwatch.yaml (the first place pinwatch looks), or -o FILE; -o - prints it. An \
                existing file is never replaced without --force. Hosts that give no chain are named on stderr \
                and in a comment, and left out. Exit 0 when every host gave a trusted chain; 1 when some did \
                not (the file holds the others; nothing is written when none did); 2 for usage errors or a file \
                that exists or cannot be written.
                """
        )

        @Argument(help: ArgumentHelp("Hosts, each with an optional port (default 443); [v6]:port for IPv6.", valueName: "host[:port]"))
        var targets: [String]

        @Option(
            name: [.short, .customLong("output")],
            help: ArgumentHelp("File to write (default ./pinwatch.yaml); - for stdout.", valueName: "path"),
            completion: .file(extensions: ["yaml", "yml"]))
        var output: String = "pinwatch.yaml"

        @Flag(help: "Replace the output file when it exists.")
        var force = false

        @Option(
            help: ArgumentHelp("Trust store: `system` or a PEM bundle (written into the file).", valueName: "system|path"),
            completion: .file())
        var trust: String = "system"

        @Option(
            help: ArgumentHelp(
                "Deadline per host for DNS, connect, proxy and handshake (e.g. 10s, 500ms); written into the file when given.",
                valueName: "duration"))
        var timeout: String?

        private static let defaultTimeout: TimeInterval = 10

        func validate() throws {
            guard !targets.isEmpty else { throw ValidationError("name at least one host, e.g. `pinwatch init api.example.com`") }
            var seen: Set<String> = []
            for target in targets {
                let endpoint = try HostPort.validated(target)
                if let problem = HostNameCheck.problem(endpoint.host) {
                    throw ValidationError("\(EchoedInput.quoted(target)): \(problem)")
                }
                guard seen.insert("\(endpoint.host.lowercased()):\(endpoint.port)").inserted else {
                    throw ValidationError("\(EchoedInput.quoted(target)) is named twice")
                }
            }
            if let timeout {
                guard let seconds = ConfigDuration.parse(timeout), seconds >= ConfigLimits.minimumTimeout, seconds <= 600 else {
                    throw ValidationError(
                        "--timeout must be a duration from 10ms to 10m (e.g. 10s, 500ms), not \(EchoedInput.quoted(timeout))")
                }
            }
        }

        func run() throws {
            try reportingFailures {
                let toStandardOutput = output == "-"
                if !toStandardOutput, !force, FileManager.default.fileExists(atPath: output) {
                    throw UserFacingError(message: "\(output) exists; --force replaces it, -o names another file")
                }
                let trustSource = try TrustOption.source(trust)
                let hosts = try targets.map { target in
                    let endpoint = try HostPort.validated(target)
                    return HostConfig(host: endpoint.host, port: endpoint.port, trust: trustSource)
                }
                let seconds = timeout.flatMap(ConfigDuration.parse) ?? Self.defaultTimeout
                let reports = HostPoller(config: Config(timeout: seconds, concurrency: 16, hosts: hosts)).runCycle()
                let unwritten = reports.filter { $0.result.failure != nil || $0.levels.isEmpty }
                let untrusted = reports.filter { $0.result.failure == nil && !$0.levels.isEmpty && !$0.result.trusted }
                for report in unwritten + untrusted {
                    Output.standardError(
                        "pinwatch: init: \(TerminalText.sanitize(report.config.displayName)): \(InitialConfig.problem(of: report))")
                }
                let written = reports.count - unwritten.count
                guard written > 0 else {
                    throw UserFacingError(message: "init: no host gave a chain: nothing written", code: 1)
                }
                let text = InitialConfig.yaml(reports: reports, timeout: timeout, trust: trustSource, now: Date())
                if toStandardOutput {
                    Output.standardOutput(text)
                } else {
                    try write(text)
                    Output.standardOutput("wrote \(output): \(written) host\(written == 1 ? "" : "s")\n")
                }
                if !unwritten.isEmpty || !untrusted.isEmpty { throw ExitCode(1) }
            }
        }

        /// Without --force the file is created only if absent at the moment
        /// of writing; with it, replaced whole, never left half-written.
        private func write(_ text: String) throws {
            do {
                try Data(text.utf8).write(to: URL(fileURLWithPath: output), options: force ? .atomic : .withoutOverwriting)
            } catch let error as CocoaError where error.code == .fileWriteFileExists {
                throw UserFacingError(message: "\(output) exists; --force replaces it, -o names another file")
            } catch {
                throw UserFacingError(message: "\(output): cannot write: \(error.localizedDescription)")
            }
        }
    }
}
