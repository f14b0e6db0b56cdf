import ArgumentParser
import Foundation
import PinwatchCatalogue
import PinwatchCore
import PinwatchSystem

extension Pinwatch {
    /// The CA families next chains are judged against, and their pins.
    struct CatalogueCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "catalogue",
            abstract: "List the CA families pinwatch knows (roots, issuing pool, transitions), or one family's pins (text, json).",
            discussion: """
                `pinwatch catalogue` lists every family: its roots, the pool of intermediates it issues \
                from, announced transitions and the date of the data. `pinwatch catalogue show NAME` \
                prints each certificate of one family with its pins in all four forms (sha256/, spki:, \
                key:, cert:), ready to paste.

                The built-in data (catalogue/ in the source) is overlaid by families in \
                $XDG_DATA_HOME/pinwatch/catalogue/ (default ~/.local/share/pinwatch/catalogue/), \
                then by the configuration's catalogue: key when a configuration is found.
                """
        )

        @Argument(help: ArgumentHelp("Nothing to list the families, or `show NAME` for one family.", valueName: "show NAME"))
        var words: [String] = []

        @OptionGroup var options: ConfigOptions

        @Option(help: "Output format: text or json.")
        var format: ListingFormat = .text

        func validate() throws {
            guard words.isEmpty || (words.count == 2 && words[0] == "show") else {
                throw ValidationError("expected nothing or `show NAME`, found \(EchoedInput.quoted(words.joined(separator: " ")))")
            }
        }

        func run() throws {
            try reportingFailures {
                let catalogue = try load()
                guard words.count == 2 else {
                    Output.standardOutput(format == .json ? CatalogueListing.json(catalogue) : CatalogueListing.text(catalogue))
                    return
                }
                guard let family = catalogue.family(named: words[1]) else {
                    let names = catalogue.families.map(\.name).joined(separator: ", ")
                    throw UserFacingError(message: "no family \(EchoedInput.quoted(words[1])) in the catalogue (families: \(names))")
                }
                Output.standardOutput(format == .json ? CatalogueListing.showJSON(family) : CatalogueListing.showText(family))
            }
        }

        /// With the configuration's families when there is a configuration;
        /// the built-in and user data alone otherwise.
        private func load() throws -> Catalogue {
            let located = ConfigLocator.locate(
                explicit: options.config, currentDirectory: FileManager.default.currentDirectoryPath,
                environment: ProcessEnvironment.current)
            if located != nil { return try options.load().catalogue }
            do {
                return try CatalogueLoader.load(
                    sources: [], userFolder: CatalogueLoader.userFolder(environment: ProcessEnvironment.current))
            } catch {
                throw UserFacingError(message: error.problems.map(\.description).joined(separator: "\npinwatch: "))
            }
        }
    }
}
