import ArgumentParser
import Foundation
import PinwatchCore
import PinwatchService
import PinwatchSystem

/// The root command: with no subcommand it opens the dashboard.
struct Pinwatch: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pinwatch",
        abstract: "Watch live TLS chains against the public-key pins your shipped clients carry.",
        discussion: """
            pinwatch warns before a pinned client breaks: above all when only the leaf tier \
            still matches, so the client works today and fails at the next leaf renewal.

            Configuration is read from --config PATH, ./pinwatch.yaml, or \
            $XDG_CONFIG_HOME/pinwatch/config.yaml (default ~/.config/pinwatch/config.yaml).

            Exit codes: 0 the command ran, 2 usage or configuration error, 1 unexpected failure; \
            `check` uses the Nagios codes 0/1/2/3.
            """,
        version: PinwatchVersion.withCommit,
        // Each subcommand writes its commandName: ArgumentParser otherwise
        // derives it with String(describing:), whose first dynamic casts scan
        // every protocol conformance in the binary at each start.
        subcommands: [
            Watch.self, Snapshot.self, Check.self, Serve.self, History.self, Validate.self, Lint.self, Import.self, Inspect.self,
            PinFiles.self, Preflight.self, CatalogueCommand.self, CTCommand.self, Demo.self,
            Init.self,
        ],
        defaultSubcommand: Watch.self
    )
}

/// What to say about a first word that names no command.
enum CommandSuggestion {
    /// Written out, because every start checks the first word against it and
    /// asking ArgumentParser for each subcommand's name costs a reflection
    /// walk (about a fifth of `check`'s start-up CPU). The end-to-end tests
    /// run each name `pinwatch --help` lists, so a command missing here fails.
    static let commandNames = [
        "watch", "snapshot", "check", "serve", "history", "validate", "lint", "import", "inspect", "pin", "preflight", "catalogue", "ct",
        "demo",
        "init",
        "help",
        "version",
    ]

    static func problem(for word: String) -> String? {
        let names = commandNames
        guard !names.contains(word) else { return nil }
        let quoted = EchoedInput.quoted(word)
        let closest = names.map { ($0, distance(word.lowercased(), $0)) }.min { $0.1 < $1.1 }
        if let closest, closest.1 <= max(1, closest.0.count / 3) {
            return "unknown command \(quoted); did you mean `pinwatch \(closest.0)`? (commands: \(names.joined(separator: ", ")))"
        }
        return "unknown command \(quoted) (commands: \(names.joined(separator: ", ")); `pinwatch --help` says more)"
    }

    /// Edit distance (insert, delete, substitute, swap of neighbours).
    static func distance(_ left: String, _ right: String) -> Int {
        let a = Array(left)
        let b = Array(right)
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}

/// Usage errors exit with 2 (DESIGN §7), where ArgumentParser would use 64.
@main
enum Entry {
    /// Runs a command line read without ArgumentParser and ends the process.
    /// Commands run every minute for every service: their output is written
    /// and the history store closed by now, so the exit handlers are
    /// skipped: OpenSSL's alone free every table it built, a measurable part
    /// of a `check` (Benchmarks/README.md, "Figures moved out of code
    /// comments").
    private static func runPlainLine(_ body: () throws -> Void) -> Never {
        do {
            try body()
            fflush(nil)
            _exit(0)
        } catch let code as ExitCode {
            fflush(nil)
            _exit(code.rawValue)
        } catch {
            Pinwatch.exit(withError: error)
        }
    }

    /// `--generate-manual`: the manual page, as `--generate-completion-script`
    /// prints a completion script, so the package writes it from the binary
    /// it ships. `--generate-manual NAME` writes a companion executable's
    /// page from its `--experimental-dump-help` on stdin (pinwatch-serve).
    /// `SOURCE_DATE_EPOCH` dates the page (reproducible builds); without
    /// it, today.
    private static func printManual(companion: String?) -> Never {
        let epoch = ProcessEnvironment.current["SOURCE_DATE_EPOCH"].flatMap(TimeInterval.init)
        let date = epoch.map(Date.init(timeIntervalSince1970:)) ?? Date()
        do {
            if let companion {
                let dump = String(decoding: try FileHandle.standardInput.read(upToCount: 4 << 20) ?? Data(), as: UTF8.self)
                Output.standardOutput(ManualPage.renderCompanion(try CommandHelp.decode(dump: dump), name: companion, date: date))
            } else {
                Output.standardOutput(ManualPage.render(try CommandHelp.decode(dump: Pinwatch._dumpHelp()), date: date))
            }
            exit(0)
        } catch {
            let source = companion.map { "\($0) --experimental-dump-help's JSON on stdin" } ?? "ArgumentParser's help dump"
            Output.standardError("pinwatch: --generate-manual: cannot read \(source): \(error)")
            exit(1)
        }
    }

    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let first = arguments.first {
            if first == "-V" || first == "version" {
                Output.standardOutput("pinwatch \(PinwatchVersion.withCommit)\n")
                exit(0)
            }
            if first == "--generate-manual" {
                printManual(companion: arguments.dropFirst().first)
            }
            // The dashboard takes no words, so a word that is no command is a
            // typo: say so, instead of showing watch's usage.
            if !first.hasPrefix("-"), let problem = CommandSuggestion.problem(for: first) {
                Output.standardError("pinwatch: \(problem)")
                exit(2)
            }
        }
        if let plain = CheckCommandLine.plain(arguments) {
            runPlainLine { try Pinwatch.Check.run(plain) }
        }
        if let plain = SnapshotCommandLine.plain(arguments) {
            runPlainLine { try Pinwatch.Snapshot.run(plain) }
        }
        do {
            var command = try Pinwatch.parseAsRoot()
            try command.run()
        } catch {
            if Pinwatch.exitCode(for: error) == .validationFailure {
                let message = Pinwatch.fullMessage(for: error)
                Output.standardError(message)
                // `check` speaks Nagios even about its own usage: 2 would read
                // as CRITICAL and page someone for a typo in a command line.
                if CommandLine.arguments.dropFirst().first == "check" {
                    let outcome = CheckReport.unknown("usage: " + message)
                    Output.standardOutput(outcome.text)
                    exit(outcome.exitCode)
                }
                exit(2)
            }
            Pinwatch.exit(withError: error)
        }
    }
}
