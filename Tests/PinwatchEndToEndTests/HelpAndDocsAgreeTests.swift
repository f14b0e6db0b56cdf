import Foundation
import XCTest

@testable import pinwatch

/// What the docs and `--help` promise, held against what the binary takes.
final class HelpAndDocsAgreeTests: LocalFleetTestCase {
    /// `pinwatch --help` listed snapshot as text, ansi or json only.
    func testTopLevelHelpNamesEveryFormatOfEachCommand() throws {
        let help = try PinwatchBinary.run(["--help"])
        XCTAssertEqual(help.status, 0, help.stderr)
        let formats: [(String, [String])] = [
            ("snapshot", SnapshotFormat.allCases.map(\.rawValue)),
            ("history", HistoryFormat.allCases.map(\.rawValue)),
            ("lint", Pinwatch.Lint.Format.allCases.map(\.rawValue)),
            ("import", Pinwatch.ImportFormat.allCases.map(\.rawValue)),
            ("inspect", Pinwatch.Inspect.InspectFormat.allCases.map(\.rawValue)),
            ("pin", ListingFormat.allCases.map(\.rawValue)),
            ("preflight", PreflightFormat.allCases.map(\.rawValue)),
            ("catalogue", ListingFormat.allCases.map(\.rawValue)),
        ]
        for (command, names) in formats {
            let entry = Self.entry(of: command, in: help.stdout)
            XCTAssertFalse(entry.isEmpty, "\(command) is listed: \(help.stdout)")
            for name in names {
                XCTAssertNotNil(entry.range(of: "\\b\(name)\\b", options: .regularExpression), "\(command): \(name) in \(entry)")
            }
        }
    }

    /// The command's line under SUBCOMMANDS with its wrapped continuation lines.
    private static func entry(of command: String, in help: String) -> String {
        let lines = help.split(separator: "\n").map(String.init)
        guard let start = lines.firstIndex(where: { $0.hasPrefix("  \(command) ") || $0.hasPrefix("  \(command)\t") }) else { return "" }
        var text = lines[start]
        for line in lines[(start + 1)...] {
            guard line.hasPrefix("      ") else { break }
            text += " " + line.trimmingCharacters(in: .whitespaces)
        }
        return text.split(separator: " ").joined(separator: " ")
    }

    /// docs/CONFIGURATION.md showed `interval: 500ms`, which the loader
    /// refuses: every duration it writes is accepted for the key its row is about.
    func testEveryDurationExampleInTheConfigurationDocIsAccepted() throws {
        let doc = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("docs/CONFIGURATION.md"), encoding: .utf8)
        let duration = try NSRegularExpression(pattern: "`([0-9]+(?:\\.[0-9]+)?(?:ms|s|m|h))`")
        var checked = 0
        for line in doc.split(separator: "\n").map(String.init) {
            let examples = duration.matches(in: line, range: NSRange(line.startIndex..., in: line)).compactMap {
                Range($0.range(at: 1), in: line).map { String(line[$0]) }
            }
            let intervalRow = line.hasPrefix("| `interval`")
            for example in examples {
                let asInterval = try validates("interval: \(example)\ntimeout: 10ms\nhosts: []\n")
                let asTimeout = try validates("interval: 604800\ntimeout: \(example)\nhosts: []\n")
                XCTAssertTrue(intervalRow ? asInterval : (asInterval || asTimeout), "\(example) in: \(line)")
                checked += 1
            }
        }
        XCTAssertGreaterThanOrEqual(checked, 5, "the doc's examples were found")
    }

    private func validates(_ yaml: String) throws -> Bool {
        let file = try fleet.write(yaml, to: "duration.yaml")
        return try fleet.run(["validate", "--config", file.path, "--allow-empty"]).status == 0
    }
}
