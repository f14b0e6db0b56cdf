import Foundation

/// A family declared under `catalogue:` in the configuration, as written:
/// certificate files (resolved against the configuration's folder) that
/// the catalogue loader parses and verifies. Core reads no certificate.
public struct CatalogueSource: Hashable, Sendable {
    public struct File: Hashable, Sendable {
        public var path: String
        /// Where the path is written, for problems.
        public var line: Int
        public var key: String

        public init(path: String, line: Int, key: String) {
            self.path = path
            self.line = line
            self.key = key
        }
    }

    public var name: String
    public var roots: [File]
    /// The pool the family issues from.
    public var intermediates: [File]
    /// The configuration file and the line of the entry.
    public var configFile: String
    public var line: Int
    public var key: String

    public init(name: String, roots: [File], intermediates: [File], configFile: String, line: Int, key: String) {
        self.name = name
        self.roots = roots
        self.intermediates = intermediates
        self.configFile = configFile
        self.line = line
        self.key = key
    }
}

/// Builds the catalogue a configuration is judged against from its
/// `catalogue:` entries (and the built-in and user data); every problem is
/// a `ConfigProblem` with file and line, and one problem fails the whole
/// configuration, so nothing is probed with a half-loaded catalogue.
/// Injected into `ConfigLoader` because certificates are parsed outside Core.
public typealias CatalogueBuilder = @Sendable ([CatalogueSource]) throws(ConfigError) -> Catalogue
