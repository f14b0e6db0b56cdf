import Foundation
import XCTest

/// The messages a newcomer meets first: each says what was
/// wrong, where, and what to do.
final class CommandsMessagesTests: LocalFleetTestCase {
    func testMissingConfigurationFileIsNamedPlainly() throws {
        let outcome = try fleet.run(["snapshot", "--config", "missing.yaml"])
        XCTAssertEqual(outcome.status, 2)
        XCTAssertEqual(outcome.stderr, "pinwatch: missing.yaml: no such file\n")
    }

    func testTabsInIndentationAreNamedWithTheirLine() throws {
        try fleet.write("interval: 30s\nhosts:\n\t- host: a.test\n", to: "tabs.yaml")
        let outcome = try fleet.run(["validate", "--config", "tabs.yaml"])
        XCTAssertEqual(outcome.status, 2)
        XCTAssertTrue(outcome.stderr.contains("tabs.yaml:3: tabs are not allowed for indentation in YAML (line 3)"), outcome.stderr)
    }

    func testAHexDigestAfterSha256SuggestsSpki() throws {
        let hex = String(repeating: "0f", count: 32)
        try fleet.write("hosts:\n  - host: a.test\n    pins:\n      ca: [sha256/\(hex)]\n", to: "hex.yaml")
        let outcome = try fleet.run(["validate", "--config", "hex.yaml"])
        XCTAssertEqual(outcome.status, 2)
        XCTAssertTrue(
            outcome.stderr.contains("digest is 48 bytes, a SHA-256 digest is 32 (a hex digest? write it as spki:HEX)"), outcome.stderr)
    }

    func testAMistypedCommandGetsASuggestionNotWatchsUsage() throws {
        let typo = try fleet.run(["snapshto", "--format", "json"])
        XCTAssertEqual(typo.status, 2)
        XCTAssertTrue(typo.stderr.hasPrefix("pinwatch: unknown command \"snapshto\"; did you mean `pinwatch snapshot`?"), typo.stderr)
        XCTAssertFalse(typo.stderr.contains("Usage: pinwatch watch"), typo.stderr)
        let nonsense = try fleet.run(["banana"])
        XCTAssertEqual(nonsense.status, 2)
        XCTAssertTrue(nonsense.stderr.contains("unknown command \"banana\" (commands: watch, snapshot, check"), nonsense.stderr)
    }

    /// The typo check runs before ArgumentParser with a written-out list of
    /// names: every subcommand `--help` lists must pass it.
    func testEveryListedCommandIsKnownToTheTypoCheck() throws {
        let help = try fleet.run(["--help"])
        let section = try XCTUnwrap(help.stdout.components(separatedBy: "SUBCOMMANDS:").last)
        let names = section.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("  "), !line.hasPrefix("   "), let word = line.split(separator: " ").first,
                word.allSatisfy(\.isLowercase)
            else { return nil }
            return String(word)
        }
        XCTAssertEqual(names.count, 15, "\(names)")
        for name in names {
            let outcome = try fleet.run([name, "--help"])
            XCTAssertEqual(outcome.status, 0, "\(name): \(outcome.stderr)")
            XCTAssertFalse(outcome.stderr.contains("unknown command"), "\(name): \(outcome.stderr)")
        }
    }

    func testVersionThreeWays() throws {
        var printed: Set<String> = []
        for arguments in [["-V"], ["version"], ["--version"]] {
            let outcome = try fleet.run(arguments)
            XCTAssertEqual(outcome.status, 0, "\(arguments)")
            XCTAssertTrue(outcome.stdout.range(of: #"^(pinwatch )?\d+\.\d+\.\d+\n$"#, options: .regularExpression) != nil, outcome.stdout)
            printed.insert(outcome.stdout.replacingOccurrences(of: "pinwatch ", with: ""))
        }
        XCTAssertEqual(printed.count, 1, "the same version every way")
        // VERSION is the one place the version is written (scripts/package
        // reads it too, for the package's name).
        let versionFile = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("VERSION")
        let written = try String(contentsOf: versionFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(printed, ["\(written)\n"])
    }

    /// Installed, pinwatch is found on PATH and argv[0] is a bare name:
    /// `serve` must still find pinwatch-serve beside the binary, not in the
    /// current directory.
    func testServeFoundThroughPathRunsItsSibling() throws {
        let folder = PinwatchBinary.url.deletingLastPathComponent().path
        let outcome = try PinwatchBinary.runShell(
            "PATH='\(folder)':\"$PATH\" exec pinwatch serve --help", currentDirectory: fleet.directory)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertTrue(outcome.stdout.contains("--listen"), outcome.stdout)
    }

    /// The fleet's folder has no themes/: every theme comes from the binary,
    /// and the example config's spelling `colour-blind` works.
    func testBuiltInThemesWorkOutsideTheCheckout() throws {
        try fleet.addOK("themed.test")
        try fleet.writeConfig()
        let colourBlind = try fleet.run(["snapshot", "--format", "ansi", "--theme", "colour-blind"])
        XCTAssertEqual(colourBlind.status, 0, colourBlind.stderr)
        XCTAssertTrue(colourBlind.stdout.contains("48;5;25"), "the colour-blind header (#0072b2)")
        let highContrast = try fleet.run(["snapshot", "--format", "ansi", "--theme", "high-contrast"])
        XCTAssertEqual(highContrast.status, 0, highContrast.stderr)
        let unknown = try fleet.run(["snapshot", "--format", "ansi", "--theme", "sepia"])
        XCTAssertEqual(unknown.status, 2)
        XCTAssertTrue(unknown.stderr.contains("built in: default, mono, high-contrast, colorblind"), unknown.stderr)
    }
}

/// docs/man/pinwatch.1 is generated (scripts/man) and committed: it must
/// not fall behind the commands the binary has.
final class ManualPageTests: XCTestCase {
    func testTheManualNamesEveryCommand() throws {
        let manual = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/man/pinwatch.1")
        let page = try String(contentsOf: manual, encoding: .utf8)
        let help = try PinwatchBinary.run(["--help"])
        let commands =
            help.stdout.components(separatedBy: "SUBCOMMANDS:").last?
            .split(separator: "\n").compactMap { line -> String? in
                let words = line.split(separator: " ")
                guard line.hasPrefix("  "), !line.hasPrefix("   "), let first = words.first, first.allSatisfy({ $0.isLowercase }) else {
                    return nil
                }
                return String(first)
            } ?? []
        XCTAssertGreaterThanOrEqual(commands.count, 9, help.stdout)
        for command in commands where command != "help" {
            XCTAssertTrue(page.contains(".It Cm \(command)\n"), "docs/man/pinwatch.1 lacks \(command): run scripts/man")
        }
    }
}
