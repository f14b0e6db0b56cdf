import ArgumentParser
import Foundation
import PinwatchCatalogue
import PinwatchCore
import PinwatchHistory
import PinwatchMonitor
import PinwatchSystem

extension Pinwatch {
    /// The CA families next chains are judged against, and their pins.
    struct CatalogueCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "catalogue",
            abstract:
                "List the CA families pinwatch knows (roots, issuing pool, transitions, data date), one family's pins (text, json), or update the data from CCADB's reports.",
            discussion: """
                `pinwatch catalogue` lists every family: its roots, the pool of intermediates it issues \
                from, announced transitions and the date of the data. `pinwatch catalogue show NAME` \
                prints each certificate of one family with its pins in all four forms (sha256/, spki:, \
                key:, cert:), ready to paste.

                The built-in data (catalogue/ in the source) is overlaid by families in \
                $XDG_DATA_HOME/pinwatch/catalogue/ (default ~/.local/share/pinwatch/catalogue/), \
                then by the configuration's catalogue: key when a configuration is found. Data older \
                than 180 days is flagged.

                `pinwatch catalogue update FILE…` reads CCADB's reports as downloaded from ccadb.org \
                (the "All Certificate PEMs" CSVs, and optionally the V5 "All Certificate Information" \
                CSV, whose revoked certificates are left out), offline: every built-in family's issuer \
                graph is derived again by signature and written, with the family's description, to the \
                data folder above; nothing is written unless the result loads with every signature \
                verified. Malformed certificates are skipped and counted. --as-of gives the reports' \
                date (default: the newest certificate in them).

                With ct: in the configuration, each family also lists the issuers Certificate \
                Transparency showed for the watched names (read from the history store, --state), \
                with when they were last logged and whether the family's pool lists them: evidence of a \
                pool member the data may not declare yet.
                """
        )

        @Argument(
            help: ArgumentHelp(
                "Nothing to list the families, `show NAME` for one family, or `update FILE…` with CCADB's reports.",
                valueName: "show NAME | update FILE"))
        var words: [String] = []

        @Option(name: .customLong("as-of"), help: ArgumentHelp("update: the reports' date (YYYY-MM-DD).", valueName: "date"))
        var asOf: String?

        @OptionGroup var options: ConfigOptions

        @Option(help: "Output format: text or json.")
        var format: ListingFormat = .text

        @OptionGroup var history: StateOptions

        func validate() throws {
            guard words.isEmpty || (words.count == 2 && words[0] == "show") || (words.count >= 2 && words[0] == "update") else {
                throw ValidationError(
                    "expected nothing, `show NAME` or `update FILE…`, found \(EchoedInput.quoted(words.joined(separator: " ")))")
            }
            if let asOf, DateText.parseDay(asOf) == nil {
                throw ValidationError("--as-of \(EchoedInput.quoted(asOf)): expected a date as YYYY-MM-DD")
            }
        }

        func run() throws {
            try reportingFailures {
                if words.first == "update" { return try update(Array(words.dropFirst())) }
                let (catalogue, config) = try load()
                let now = Date()
                guard words.count == 2 else {
                    let observed = config.map { observedIssuers($0, now: now) } ?? []
                    Output.standardOutput(
                        format == .json
                            ? CatalogueListing.json(catalogue, now: now, observed: observed)
                            : CatalogueListing.text(catalogue, now: now, observed: observed))
                    return
                }
                guard let family = catalogue.family(named: words[1]) else {
                    let names = catalogue.families.map(\.name).joined(separator: ", ")
                    throw UserFacingError(message: "no family \(EchoedInput.quoted(words[1])) in the catalogue (families: \(names))")
                }
                Output.standardOutput(format == .json ? CatalogueListing.showJSON(family) : CatalogueListing.showText(family))
            }
        }

        /// Derives every built-in family again from the reports into a new
        /// folder beside the data folder, loads it (every signature checked),
        /// and only then moves each family into place.
        private func update(_ files: [String]) throws {
            guard let folder = CatalogueLoader.userFolder(environment: ProcessEnvironment.current) else {
                throw UserFacingError(message: "no data folder: set XDG_DATA_HOME or HOME")
            }
            let result: CatalogueUpdate.Result
            do {
                result = try CatalogueUpdate.run(files: files, asOf: asOf.flatMap(DateText.parseDay)) { relative in
                    try? RegularFile.readText((folder as NSString).appendingPathComponent(relative), limit: 1024 * 1024)
                }
            } catch {
                throw UserFacingError(message: "catalogue update: \(error.message)")
            }
            let manager = FileManager.default
            let staging = folder + ".update-\(ProcessInfo.processInfo.processIdentifier)"
            defer { try? manager.removeItem(atPath: staging) }
            do {
                for (relative, text) in result.files {
                    let path = (staging as NSString).appendingPathComponent(relative)
                    try manager.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                    try text.write(toFile: path, atomically: false, encoding: .utf8)
                }
                _ = try CatalogueLoader.load(sources: [], userFolder: staging)
            } catch let error as ConfigError {
                throw UserFacingError(
                    message: "catalogue update: the derived data does not load, nothing written: "
                        + error.problems.map(\.description).joined(separator: "; "))
            } catch {
                throw UserFacingError(message: "catalogue update: \(staging): \(error.localizedDescription)")
            }
            do {
                try manager.createDirectory(atPath: folder, withIntermediateDirectories: true)
                for family in try manager.contentsOfDirectory(atPath: staging) {
                    let target = (folder as NSString).appendingPathComponent(family)
                    try? manager.removeItem(atPath: target)
                    try manager.moveItem(atPath: (staging as NSString).appendingPathComponent(family), toPath: target)
                }
            } catch {
                throw UserFacingError(message: "catalogue update: \(folder): \(error.localizedDescription)")
            }
            for line in result.lines { Output.standardOutput("catalogue update: \(TerminalText.sanitize(line))\n") }
            Output.standardOutput("catalogue update: written to \(TerminalText.sanitize(folder))\n")
        }

        /// With the configuration's families when there is a configuration;
        /// the built-in and user data alone otherwise.
        private func load() throws -> (Catalogue, Config?) {
            let located = ConfigLocator.locate(
                explicit: options.config, currentDirectory: FileManager.default.currentDirectoryPath,
                environment: ProcessEnvironment.current)
            if located != nil {
                let config = try options.load()
                return (config.catalogue, config)
            }
            do {
                return (
                    try CatalogueLoader.load(
                        sources: [], userFolder: CatalogueLoader.userFolder(environment: ProcessEnvironment.current)), nil
                )
            } catch {
                throw UserFacingError(message: error.problems.map(\.description).joined(separator: "\npinwatch: "))
            }
        }

        /// The issuers of what `ct:` logged for the watched names and kept
        /// in the history store, read without writing (a store another
        /// pinwatch holds, or none yet, is read or skipped quietly).
        private func observedIssuers(_ config: Config, now: Date) -> [ObservedIssuer] {
            guard config.ct != nil, let store = StateOptions.openReadOnly(config, override: history.state),
                let logged = try? store.ctState?.loadLogged(now: now)
            else { return [] }
            return CTFollowing.observedIssuers(logged, in: config.catalogue)
        }
    }
}
