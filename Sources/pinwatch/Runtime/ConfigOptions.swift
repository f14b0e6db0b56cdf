import ArgumentParser
import Foundation
import PinwatchCore
import PinwatchProbe

/// The options every configuration-driven command shares.
struct ConfigOptions: ParsableArguments {
    @Option(name: .shortAndLong, help: ArgumentHelp("Configuration file.", valueName: "path"))
    var config: String?

    /// Finds and loads the configuration; every problem goes to stderr, one
    /// line each, and the command exits 2 without probing anything.
    func load() throws -> Config {
        let environment = ProcessInfo.processInfo.environment
        let cwd = FileManager.default.currentDirectoryPath
        guard let path = ConfigLocator.locate(explicit: config, currentDirectory: cwd, environment: environment) else {
            throw UserFacingError(
                message: """
                    no configuration found: pass --config PATH, or create ./pinwatch.yaml or \
                    $XDG_CONFIG_HOME/pinwatch/config.yaml (try `pinwatch demo` for a built-in example)
                    """)
        }
        let loader = ConfigLoader(certificateDigests: { try CertificateReader.certificateDigests(inFile: $0) })
        let outcome = Result { () throws(ConfigError) -> Config in try loader.load(path: path) }
        switch outcome {
        case .success(let config):
            return config
        case .failure(let error):
            throw UserFacingError(message: error.problems.map(\.description).joined(separator: "\npinwatch: "))
        }
    }
}
