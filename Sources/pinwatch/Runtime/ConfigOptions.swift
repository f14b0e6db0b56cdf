import ArgumentParser
import Foundation
import PinwatchCore
import PinwatchProbe

/// The options every configuration-driven command shares.
struct ConfigOptions: ParsableArguments {
    @Option(name: .shortAndLong, help: ArgumentHelp("Configuration file.", valueName: "path"))
    var config: String?

    @Option(
        help: ArgumentHelp(
            "Watch only shard I of N (0 ≤ I < N), by a stable hash of each host; overrides shard: in the config.", valueName: "I/N"))
    var shard: String?

    func validate() throws {
        if let shard, Shard(parsing: shard) == nil {
            throw ValidationError("--shard \(EchoedInput.quoted(shard)): expected I/N with 0 ≤ I < N, e.g. 0/3")
        }
    }

    /// Finds and loads the configuration, keeping only the hosts of the
    /// shard; every problem goes to stderr, one line each, and the command
    /// exits 2 without probing anything.
    func load() throws -> Config {
        try loadWholeFile().keepingShard(shard.flatMap(Shard.init(parsing:)))
    }

    /// The path the configuration comes from, for messages.
    var path: String? {
        ConfigLocator.locate(
            explicit: config, currentDirectory: FileManager.default.currentDirectoryPath,
            environment: ProcessInfo.processInfo.environment)
    }

    private func loadWholeFile() throws -> Config {
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
