import ArgumentParser
import Foundation
import PinwatchCore
import PinwatchImport
import PinwatchMonitor
import PinwatchProbe

extension Pinwatch {
    /// Reads pins out of the clients' own files and prints a stanza to paste.
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Print the pinsets and hosts that apps' pin files carry, ready to paste into the configuration (yaml, json).",
            discussion: """
                Reads an Android network_security_config.xml, a TrustKit Info.plist, JSON export or \
                Swift/Objective-C initSharedInstance literal, an Info.plist (XML or binary) with Apple's \
                NSPinnedDomains, a react-native-ssl-manager ssl_config.json, an initializeSslPinning literal, \
                Flutter allowedSHAFingerprints, Kotlin or Java sources with OkHttp \
                CertificatePinner.add(...), a curl --pinnedpubkey line, an HPKP Public-Key-Pins header, \
                or a signed dynamic pin list (with --public-key; a saved challenge-signed one also with \
                --signature and --challenge). The format is recognised from the \
                contents; --as names it. Pins go under auto:, so the live chain decides their tier \
                (NSPinnedDomains names its own: ca: and leaf:). To \
                follow the files as they change, name them under clients: instead.
                """
        )

        @Argument(help: ArgumentHelp("Client pin files.", valueName: "file"), completion: .file())
        var files: [String]

        @Option(help: "Output format: yaml or json.")
        var format: ImportFormat = .yaml

        @Option(
            name: .customLong("as"),
            help: ArgumentHelp(
                "The files' format: nsc, trustkit, ats, rn_ssl_manager, rn_pinning, flutter, okhttp, curl, hpkp or dynamic_list.",
                valueName: "format"))
        var sourceFormat: ClientFormat?

        @Option(help: ArgumentHelp("The host of curl, HPKP and Flutter pins that name none.", valueName: "name"))
        var host: String?

        @Option(
            name: .customLong("public-key"),
            help: ArgumentHelp("A signed list's signing key: uncompressed P-256 point, base64.", valueName: "base64"))
        var publicKey: String?

        @Option(
            help: ArgumentHelp(
                "A saved challenge-signed list's X-Cert-Pinning-Signature header (base64); with --challenge.", valueName: "base64"))
        var signature: String?

        @Option(help: ArgumentHelp("The X-Cert-Pinning-Challenge the saved list answers; with --signature.", valueName: "text"))
        var challenge: String?

        func validate() throws {
            guard !files.isEmpty else { throw ValidationError("name at least one file") }
            guard (signature == nil) == (challenge == nil) else {
                throw ValidationError("--signature and --challenge go together (a saved challenge-signed list)")
            }
            if let host, let problem = HostNameCheck.problem(host) { throw ValidationError("--host: \(problem)") }
        }

        func run() throws {
            try reportingFailures {
                var sources: [ImportedPins] = []
                for path in files {
                    sources.append(try importFile(path))
                }
                Output.standardOutput(format == .json ? ImportReport.json(sources) : ImportReport.yaml(sources))
            }
        }

        private func importFile(_ path: String) throws -> ImportedPins {
            do {
                let bytes = try ClientSourceLoader.readFile(path)
                guard let kind = sourceFormat ?? ClientSourceLoader.detect(bytes) else {
                    throw ClientSourceError(file: path, message: "not a format pinwatch reads: name it with --as (\(formatNames))")
                }
                let key = try publicKey.map { text throws(ClientSourceError) -> [UInt8] in
                    guard let bytes = Data(base64Encoded: text), bytes.count == 65, bytes.first == 0x04 else {
                        throw ClientSourceError(file: path, message: "--public-key: expected an uncompressed P-256 point in base64")
                    }
                    return Array(bytes)
                }
                let signed = signature.flatMap { signature in
                    challenge.map { DynamicPinListImporter.ChallengeSignature(challenge: $0, signature: signature) }
                }
                var pins = try ConfigFile.clientSources.read(bytes, file: path, format: kind, publicKey: key ?? [], signed: signed)
                for index in pins.rules.indices where pins.rules[index].domain.isEmpty {
                    guard let host else {
                        throw ClientSourceError(file: pins.rules[index].origin, message: "names no host: give --host NAME")
                    }
                    pins.rules[index].domain = host.lowercased()
                }
                return pins
            } catch {
                throw UserFacingError(message: "\(error)")
            }
        }

        private var formatNames: String { ClientFormat.allCases.map(\.rawValue).joined(separator: ", ") }
    }

    enum ImportFormat: String, ExpressibleByArgument, CaseIterable {
        case yaml, json
    }
}

extension ClientFormat: ExpressibleByArgument {}
