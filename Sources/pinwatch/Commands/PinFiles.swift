import ArgumentParser
import Foundation
import PinwatchCore
import PinwatchProbe

extension Pinwatch {
    /// `inspect` for certificates on disk: no network.
    struct PinFiles: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pin",
            abstract: "Print every pin form of the certificates in PEM or DER files, offline.",
            discussion: "Each file may hold one DER certificate or any number of PEM certificates."
        )

        @Argument(help: ArgumentHelp("PEM bundles or DER certificate files.", valueName: "file"))
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
                    let certificates: [CertificateFacts]
                    do {
                        certificates = try CertificateReader.certificates(inFile: path).map(\.facts)
                    } catch {
                        throw UserFacingError(message: "\(path): \(error)")
                    }
                    if certificates.isEmpty { throw UserFacingError(message: "\(path): no certificate found") }
                    switch format {
                    case .text: sections.append(ChainListing.text(file: path, certificates: certificates))
                    case .json: jsonFiles.append(ChainListing.json(file: path, certificates: certificates))
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
