import ArgumentParser
import Foundation
import PinwatchCore
import PinwatchProbe

extension Pinwatch {
    /// `inspect` for certificates on disk: no network.
    struct PinFiles: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pin",
            abstract: "Print every pin form of the certificates or keys in PEM or DER files, offline (text, json).",
            discussion: """
                Each file may hold one DER certificate or any number of PEM certificates, or a certificate \
                request (CSR) or public key, PEM or DER, or a PEM private key (PRIVATE KEY, RSA PRIVATE KEY, \
                EC PRIVATE KEY; only its public key's pins are printed): backup pins for a key that is not \
                yet in a certificate. `-` reads standard input.
                """
        )

        @Argument(
            help: ArgumentHelp("Certificates, certificate requests or public keys (PEM or DER), or - for stdin.", valueName: "file"),
            completion: .file())
        var files: [String]

        @Option(help: "Output format: text or json.")
        var format: ListingFormat = .text

        func validate() throws {
            guard !files.isEmpty else { throw ValidationError("name at least one certificate file") }
        }

        func run() throws {
            try reportingFailures {
                var sections: [String] = []
                var jsonFiles: [String] = []
                for path in files {
                    let name = path == "-" ? "standard input" : path
                    let bytes: [UInt8]
                    do {
                        bytes = try CertificateReader.read(path)
                    } catch {
                        // The reader's message already names the file.
                        throw UserFacingError(message: "\(error)")
                    }
                    let certificates: [CertificateFacts]
                    do {
                        certificates = try CertificateReader.certificates(in: bytes, source: name).map(\.facts)
                    } catch {
                        let keys = PublicKeyReader.keys(in: bytes)
                        guard !keys.isEmpty else {
                            throw UserFacingError(message: "\(error); nor a certificate request or public key")
                        }
                        switch format {
                        case .text: sections.append(ChainListing.text(file: name, keys: keys))
                        case .json: jsonFiles.append(ChainListing.json(file: name, keys: keys))
                        }
                        continue
                    }
                    switch format {
                    case .text: sections.append(ChainListing.text(file: name, certificates: certificates))
                    case .json: jsonFiles.append(ChainListing.json(file: name, certificates: certificates))
                    }
                }
                switch format {
                case .text: Output.standardOutput(sections.joined(separator: "\n"))
                case .json: Output.standardOutput("[" + jsonFiles.joined(separator: ",") + "]\n")
                }
            }
        }
    }
}

enum ListingFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}
