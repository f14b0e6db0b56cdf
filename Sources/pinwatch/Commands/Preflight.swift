import ArgumentParser
import Foundation
import PinwatchCore
import PinwatchMonitor
import PinwatchProbe

extension Pinwatch {
    /// "If I deploy this chain, which apps break?": a candidate chain judged
    /// as a live probe's would be, with nothing dialled.
    struct Preflight: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "preflight",
            abstract: "Judge a chain that is not deployed yet against the pins and every imported client release (text, json, stanza).",
            discussion: """
                The chain (a PEM bundle as the server would send it, leaf first) is verified against the \
                host's trust store and judged with the host's configured pins and each release under \
                clients:, exactly as a probe of the live host would be. Nothing is dialled and no list is \
                downloaded. A host not in the configuration is judged with no pins of its own. Exit codes: \
                0 every pinned client accepts the chain, 1 some only survive with warnings, 2 a client \
                refuses it (or the input or configuration is unusable).
                """
        )

        @Argument(help: ArgumentHelp("The host, as configured, with an optional port (default 443).", valueName: "host[:port]"))
        var target: String

        @Option(
            help: ArgumentHelp("The candidate chain: a PEM bundle, leaf first; `-` reads standard input.", valueName: "file"),
            completion: .file())
        var chain: String

        @Option(help: "Output format: text, json or stanza.")
        var format: PreflightFormat = .text

        @Option(name: .shortAndLong, help: ArgumentHelp("Configuration file.", valueName: "path"), completion: .file())
        var config: String?

        func validate() throws {
            let endpoint = try HostPort.validated(target)
            if let problem = HostNameCheck.problem(endpoint.host) {
                throw ValidationError("host: \(problem)")
            }
        }

        func run() throws {
            var exitCode: Int32 = 0
            try reportingFailures {
                let endpoint = try HostPort.validated(target)
                let config = try ConfigOptions.load(explicit: self.config, shard: nil, offline: true)
                let configured = Self.configuredHost(endpoint, in: config)
                let host = configured ?? HostConfig(host: endpoint.host, port: endpoint.port, trust: config.trust)
                let source = chain == "-" ? "standard input" : chain
                let certificates = try Self.readChain(chain, source: source)
                let result: ProbeResult
                do {
                    result = try ServedChain.result(of: certificates, serverName: host.serverName, trust: host.trust)
                } catch let problem as ServedChain.Problem {
                    throw UserFacingError(message: "--chain \(EchoedInput.quoted(source)): \(problem)")
                }
                var withoutClients = config
                withoutClients.clients = []
                let preflight = PreflightReport(
                    report: HostPoller.report(for: host, result: result, config: config),
                    own: HostPoller.report(for: host, result: result, config: withoutClients), configured: configured != nil,
                    source: source)
                let now = result.finishedAt
                switch format {
                case .text: Output.standardOutput(preflight.text)
                case .json: Output.standardOutput(preflight.json(generatedAt: now))
                case .stanza: Output.standardOutput(preflight.stanza)
                }
                exitCode = preflight.exitCode
            }
            if exitCode != 0 { throw ExitCode(exitCode) }
        }

        /// The configured entry for `host[:port]`, by name or SNI; the port
        /// decides only when it was written.
        static func configuredHost(_ endpoint: HostPort, in config: Config) -> HostConfig? {
            let name = endpoint.host.lowercased()
            return config.hosts.first { host in
                (host.host.lowercased() == name || host.serverName.lowercased() == name)
                    && (!endpoint.portWasWritten || host.port == endpoint.port)
            }
        }

        /// The bundle's certificates, read with the bound every certificate file has.
        static func readChain(_ path: String, source: String) throws -> [X509Certificate] {
            let bytes: [UInt8]
            do {
                bytes = try CertificateReader.read(path)
            } catch {
                throw UserFacingError(message: "--chain \(error)")
            }
            guard !bytes.isEmpty else { throw UserFacingError(message: "--chain \(EchoedInput.quoted(source)): empty input") }
            // A server sends PEM blocks; a DER file is not what it would send.
            guard String(decoding: bytes, as: UTF8.self).contains("-----BEGIN CERTIFICATE-----") else {
                throw UserFacingError(
                    message: "--chain \(EchoedInput.quoted(source)): not a PEM bundle (no -----BEGIN CERTIFICATE----- block)")
            }
            do {
                return try CertificateReader.certificates(in: bytes, source: source)
            } catch {
                throw UserFacingError(message: "--chain \(error)")
            }
        }
    }
}

enum PreflightFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json, stanza
}
