import Foundation

/// The part of ArgumentParser's help dump (`--experimental-dump-help`, the
/// same data its own manual plugin reads) that the manual page shows: the
/// commands and options come from the parser itself, so the page cannot
/// name an option the binary lacks.
struct CommandHelp: Decodable {
    struct Name: Decodable {
        /// `long`, `short` or `longWithSingleDash`.
        let kind: String
        let name: String
    }

    struct Argument: Decodable {
        /// `positional`, `option` or `flag`.
        let kind: String
        let names: [Name]?
        let valueName: String?
        let abstract: String?
        let discussion: String?
        let shouldDisplay: Bool
        let isOptional: Bool
        let isRepeating: Bool
    }

    let commandName: String
    let abstract: String?
    let discussion: String?
    let shouldDisplay: Bool
    let subcommands: [CommandHelp]?
    let arguments: [Argument]?

    private struct Dump: Decodable {
        let command: CommandHelp
    }

    static func decode(dump: String) throws -> CommandHelp {
        try JSONDecoder().decode(Dump.self, from: Data(dump.utf8)).command
    }
}
