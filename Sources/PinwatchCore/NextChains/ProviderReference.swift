/// A `provider:` as written, with its place for the error that names it.
public struct ProviderReference: Hashable, Sendable {
    public var name: String
    public var file: String
    public var line: Int
    public var key: String

    public init(name: String, file: String, line: Int, key: String) {
        self.name = name
        self.file = file
        self.line = line
        self.key = key
    }
}

extension Config {
    /// Every `provider:` the catalogue does not know: a misspelt provider
    /// would silently leave `ca_switch` unjudged.
    public func providerProblems() -> [ConfigProblem] {
        let known = catalogue.providers.map(\.name)
        return providerReferences.filter { !known.contains($0.name) }.map { reference in
            let list = known.isEmpty ? "the catalogue has none" : "known: " + known.joined(separator: ", ")
            return ConfigProblem(
                file: reference.file, line: reference.line, key: reference.key,
                message: "unknown provider \(EchoedInput.quoted(reference.name)) (\(list))")
        }
    }

    /// The configuration judged against `catalogue` from now on; refused,
    /// with every unknown provider, rather than run half-checked.
    public func attaching(catalogue: Catalogue) throws(ConfigError) -> Config {
        var copy = self
        copy.catalogue = catalogue
        let problems = copy.providerProblems()
        guard problems.isEmpty else { throw ConfigError(problems: problems) }
        return copy
    }
}
