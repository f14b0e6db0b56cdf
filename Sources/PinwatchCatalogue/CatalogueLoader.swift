import Foundation
import PinwatchCore
import PinwatchSystem

/// Loads the catalogue every command judges next chains against: the data
/// built into the binary, then newer families in the user's data folder
/// (a family there replaces the built-in one of the same name), then the
/// configuration's `catalogue:` families. Any problem fails the whole
/// load, with its file and line.
package enum CatalogueLoader {
    /// What `ConfigFile.load` calls once the configuration parsed.
    package static let builder: CatalogueBuilder = { sources throws(ConfigError) in
        try load(sources: sources, userFolder: userFolder(environment: ProcessEnvironment.current))
    }

    /// `$XDG_DATA_HOME/pinwatch/catalogue`, else `~/.local/share/pinwatch/catalogue`.
    package static func userFolder(environment: [String: String]) -> String? {
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return (data as NSString).appendingPathComponent("pinwatch/catalogue")
        }
        guard let home = environment["HOME"], home.hasPrefix("/") else { return nil }
        return (home as NSString).appendingPathComponent(".local/share/pinwatch/catalogue")
    }

    /// `verifyBuiltIn` checks the built-in data's signatures too (the
    /// tests do; a command need not, see `CatalogueFolder.verifiesSignatures`).
    package static func load(sources: [CatalogueSource], userFolder: String?, verifyBuiltIn: Bool = false) throws(ConfigError)
        -> Catalogue
    {
        var problems: [ConfigProblem] = []
        var families: [CatalogueFamily]
        if verifyBuiltIn {
            families = read(.builtInVerified, problems: &problems)
        } else {
            families = builtIn.families
            problems += builtIn.problems
        }
        var providerFolder = CatalogueFolder.builtIn
        if let userFolder {
            let user = CatalogueFolder.disk(userFolder)
            for family in read(user, problems: &problems) {
                families.removeAll { $0.name == family.name }
                families.append(family)
            }
            if user.hasProviders { providerFolder = user }
        }
        for source in sources {
            if families.contains(where: { $0.name == source.name }) {
                problems.append(
                    ConfigProblem(
                        file: source.configFile, line: source.line, key: "\(source.key).name",
                        message: "duplicate family name \(EchoedInput.quoted(source.name)) (the catalogue already has it)"))
                continue
            }
            if let family = ConfigFamilyLoader.load(source, problems: &problems) { families.append(family) }
        }
        var providers: [CatalogueProvider] = []
        do {
            let text = try providerFolder.read("providers.yaml")
            providers = ProvidersLoader.load(text, label: providerFolder.label("providers.yaml"), families: families, problems: &problems)
        } catch {
            if providerFolder.origin == "user" || error.reason != RegularFile.noSuchFile {
                problems.append(ConfigProblem(file: error.path, line: error.line ?? 0, key: "", message: error.reason))
            }
        }
        guard problems.isEmpty else { throw ConfigError(problems: problems) }
        return Catalogue(families: families, providers: providers)
    }

    /// The embedded data never changes while the process runs: parsed once,
    /// not again at every reload of the configuration.
    private static let builtIn: (families: [CatalogueFamily], problems: [ConfigProblem]) = {
        var problems: [ConfigProblem] = []
        let families = read(.builtIn, problems: &problems)
        return (families, problems)
    }()

    /// One family description read beside the built-in files of `folder`
    /// (signatures checked): the fuzz target's way in.
    package static func family(description: String, beside folder: String) -> (
        family: CatalogueFamily?, problems: [ConfigProblem]
    ) {
        var problems: [ConfigProblem] = []
        let families = read(.builtIn(family: folder, description: description), problems: &problems)
        return (families.first, problems)
    }

    private static func read(_ folder: CatalogueFolder, problems: inout [ConfigProblem]) -> [CatalogueFamily] {
        var families: [CatalogueFamily] = []
        for path in folder.familyFiles() {
            var loader = FamilyLoader(folder: folder, descriptionPath: path)
            let family: CatalogueFamily?
            do {
                family = loader.load(text: try folder.read(path))
            } catch {
                problems.append(ConfigProblem(file: folder.label(path), line: 0, key: "", message: error.reason))
                continue
            }
            problems += loader.problems
            guard var family else { continue }
            // The issuer graph's date, when the family was derived from CCADB.
            let listing = ((path as NSString).deletingLastPathComponent as NSString).appendingPathComponent("ccadb.yaml")
            if let text = try? folder.read(listing) { family.dataDate = CCADBDerivation.asOf(inListing: text) }
            if families.contains(where: { $0.name == family.name }) {
                problems.append(
                    ConfigProblem(
                        file: folder.label(path), line: 0, key: "name",
                        message: "duplicate family name \(EchoedInput.quoted(family.name)) in the \(folder.origin) catalogue"))
                continue
            }
            families.append(family)
        }
        return families
    }
}
