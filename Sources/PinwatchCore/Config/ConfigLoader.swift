import Foundation
import Yams

/// Reads a YAML configuration into a `Config`, or every problem in it.
///
/// Nothing is probed with a half-valid configuration (DESIGN §4), so the
/// loader never stops at the first problem: the user fixes them all in
/// one round.
public struct ConfigLoader: Sendable {
    /// Path of a PEM/DER file → SHA-256 of each DER certificate in it.
    ///
    /// Injected because Core does no cryptography; the probe module
    /// implements it with OpenSSL and tests with a table.
    public typealias CertificateDigests = @Sendable (String) throws -> [[UInt8]]

    /// A client release's `trust_store:` (a PEM bundle, or a folder of
    /// certificates as Android ships its store) → the facts of each root.
    /// Injected because Core reads no file and parses no certificate.
    public typealias TrustStoreReader = @Sendable (String) throws -> [CertificateFacts]

    /// `ct: logs:` (a v3 log list) → each log's key, id and operator, for
    /// the SCTs of releases that require Certificate Transparency.
    /// Injected because Core reads no file and parses no key.
    package typealias CTLogReader = @Sendable (String) throws -> SCTLogKeys

    private let certificateDigests: CertificateDigests
    /// Reads `ct: logs:`; nil leaves SCTs unchecked.
    private var ctLogReader: CTLogReader?
    /// Reads `clients:` sources; nil leaves them unread (they are listed
    /// in `clientSources` only).
    private let clientReader: ClientSourceReader?
    /// Reads a release's `trust_store:`; nil leaves releases on the host's store.
    private let trustStoreReader: TrustStoreReader?
    /// Reads the configuration file itself: injected because Core does no
    /// I/O (PinwatchSystem's `RegularFile.readText`); nil leaves
    /// `load(path:)` unable to read anything.
    private let readText: RegularFile.TextReader?
    /// The process's directory, for a configuration named without a
    /// folder: given, because Core does not ask the system.
    private let currentDirectory: String
    /// Fills `Config.catalogue`; nil leaves it empty (tests of other keys).
    private let catalogueBuilder: CatalogueBuilder?
    /// Lists a folder for `include:` and `file_sd:` patterns with a
    /// wildcard; nil leaves only patterns without one usable.
    private let listDirectory: RegularFile.DirectoryLister?

    public init(
        certificateDigests: @escaping CertificateDigests, clientReader: ClientSourceReader? = nil,
        readText: RegularFile.TextReader? = nil, currentDirectory: String = ".",
        catalogueBuilder: CatalogueBuilder? = nil, listDirectory: RegularFile.DirectoryLister? = nil,
        trustStoreReader: TrustStoreReader? = nil
    ) {
        self.listDirectory = listDirectory
        self.trustStoreReader = trustStoreReader
        self.certificateDigests = certificateDigests
        self.clientReader = clientReader
        self.readText = readText
        self.currentDirectory = currentDirectory
        self.catalogueBuilder = catalogueBuilder
    }

    /// The same loader, reading `ct: logs:` with `reader`.
    package func readingCTLogs(with reader: @escaping CTLogReader) -> ConfigLoader {
        var copy = self
        copy.ctLogReader = reader
        return copy
    }

    /// Far more than 10,000 hosts need; a larger file is not a configuration.
    public static let maximumFileBytes = 16 * 1024 * 1024

    /// Reads and validates the file; an unreadable file is a problem on line 0.
    public func load(path: String) throws(ConfigError) -> Config {
        guard let readText else {
            throw ConfigError(problems: [ConfigProblem(file: path, line: 0, key: "", message: "no file reader given")])
        }
        let text: String
        do {
            text = try readText(path, Self.maximumFileBytes)
        } catch {
            // `x.yaml: no such file` says it all; other failures need the context.
            let plain = error.line != nil || error.reason == RegularFile.noSuchFile
            let message = plain ? error.reason : "cannot read the file: \(error.reason)"
            throw ConfigError(problems: [ConfigProblem(file: path, line: error.line ?? 0, key: "", message: message)])
        }
        return try load(yaml: text, path: path)
    }

    /// Validates YAML text as if it had been read from `path` (relative
    /// paths in it are resolved against `path`'s folder).
    public func load(yaml: String, path: String) throws(ConfigError) -> Config {
        var parser = ConfigDocumentParser(
            file: path, certificateDigests: certificateDigests, clientReader: clientReader, currentDirectory: currentDirectory,
            trustStoreReader: trustStoreReader)
        parser.ctLogReader = ctLogReader
        if let found = YAMLAliasGuard.firstAliasOrAnchor(in: yaml) {
            throw ConfigError(problems: [ConfigProblem(file: path, line: found.line, key: "", message: YAMLAliasGuard.message(for: found))])
        }
        let root: Node?
        do {
            root = try YAMLComposer.compose(yaml)
        } catch {
            throw ConfigError(problems: [YAMLSyntaxProblem.problem(for: error, file: path, text: yaml)])
        }
        var includes = ConfigIncludes(file: path, baseDirectory: parser.baseDirectory, readText: readText, listDirectory: listDirectory)
        parser.included = includes.documents(of: root)
        // A broken included file is reported alone: its hosts' problems would follow from it.
        if !includes.problems.isEmpty { throw ConfigError(problems: includes.problems) }
        var config = parser.parse(root)
        if !parser.problems.isEmpty {
            throw ConfigError(problems: parser.problemsInFileOrder)
        }
        // Providers are checked against the catalogue they will be judged
        // with; without a builder (tests of other keys) there is none.
        if let catalogueBuilder {
            config = try config.attaching(catalogue: try catalogueBuilder(config.catalogueSources))
        }
        return config
    }
}
