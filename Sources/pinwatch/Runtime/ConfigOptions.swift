import ArgumentParser
import Foundation
import PinwatchCatalogue
import PinwatchCore
import PinwatchMonitor
import PinwatchProbe

/// The options every configuration-driven command shares.
struct ConfigOptions: ParsableArguments {
    @Option(name: .shortAndLong, help: ArgumentHelp("Configuration file.", valueName: "path"), completion: .file())
    var config: String?

    @Option(
        help: ArgumentHelp(
            "Watch only shard I of N (0 ≤ I < N), by a stable hash of each host; overrides shard: in the config.", valueName: "I/N"))
    var shard: String?

    func validate() throws {
        if let shard, let problem = Shard.problem(shard) {
            throw ValidationError("--shard \(problem)")
        }
    }

    /// Finds and loads the configuration, keeping only the hosts of the
    /// shard; every problem goes to stderr, one line each, and the command
    /// exits 2 without probing anything.
    /// An optional client source that could not be read is said once, on stderr.
    func load() throws -> Config {
        try Self.load(explicit: config, shard: shard)
    }

    /// `load()` on plain values, for the `check` lines read without ArgumentParser.
    /// `offline`: no signed list is downloaded (`preflight` dials nothing).
    static func load(explicit config: String?, shard: String?, offline: Bool = false) throws -> Config {
        do {
            let loaded = try ConfigFile.load(
                explicit: config, shard: shard.flatMap(Shard.init(parsing:)), offline: offline,
                catalogue: CatalogueLoader.builder)
            for warning in loaded.clientWarnings { Output.standardError("pinwatch: \(warning)") }
            return loaded
        } catch {
            throw UserFacingError(message: error.lines.joined(separator: "\npinwatch: "))
        }
    }
}
