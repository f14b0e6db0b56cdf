import PinwatchSystem
import XCTest

@testable import PinwatchCore

/// The manual page lists the configuration keys from `ConfigKeyGuide`: a key
/// the parser learns must get its line there, or `man pinwatch` falls
/// behind the binary.
final class ConfigKeyGuideTests: XCTestCase {
    private func names(_ section: ConfigKeyGuide.Section) -> Set<String> {
        Set(section.keys.map(\.name))
    }

    func testEveryKeyTheParserAcceptsHasAManualLine() {
        let cases: [(ConfigKeyGuide.Section, Set<String>)] = [
            (ConfigKeyGuide.topLevel, ConfigDocumentParser.topLevelKeys),
            (ConfigKeyGuide.clients, ConfigDocumentParser.clientKeys),
            (ConfigKeyGuide.catalogue, ConfigDocumentParser.catalogueEntryKeys),
        ]
        for (section, accepted) in cases {
            let missing = accepted.subtracting(names(section)).sorted()
            XCTAssertEqual(missing, [], "\(section.title): add a line to ConfigKeyGuide for each, then run scripts/man")
            let stale = names(section).subtracting(accepted).sorted()
            XCTAssertEqual(stale, [], "\(section.title): ConfigKeyGuide names keys the parser refuses")
        }
    }

    /// The keys of pin sets and hooks are checked where they are parsed, not
    /// in a list: the parser's "expected …" message for an unknown key names
    /// them, and must name what the guide does.
    func testPinSetAndHookKeysAreTheOnesTheParserExpects() {
        let pin = "sha256/" + String(repeating: "A", count: 43) + "="
        let cases: [(ConfigKeyGuide.Section, String)] = [
            (ConfigKeyGuide.pins, "pinsets:\n  web:\n    ca: [\(pin)]\n    bogus: []\n"),
            (ConfigKeyGuide.hooks, "hooks:\n  - command: [/bin/true]\n    bogus: 1\n"),
        ]
        for (section, yaml) in cases {
            let loader = ConfigLoader(
                certificateDigests: { _ in [] },
                readText: { path, limit throws(RegularFile.ReadError) in try RegularFile.readText(path, limit: limit) })
            do {
                _ = try loader.load(yaml: yaml, path: "/etc/pinwatch/pinwatch.yaml")
                XCTFail("\(section.title): an unknown key was accepted")
            } catch {
                let messages = error.problems.map(\.message)
                guard let message = messages.first(where: { $0.contains("(expected ") }) else {
                    XCTFail("\(section.title): \(messages)")
                    continue
                }
                let list = message.components(separatedBy: "(expected ").last?.components(separatedBy: ")").first ?? ""
                let expected = Set(list.replacingOccurrences(of: " or ", with: ", ").components(separatedBy: ", "))
                XCTAssertEqual(expected, names(section), "\(section.title): \(message)")
            }
        }
    }

    func testEachSectionNamesAKeyOnce() {
        for section in ConfigKeyGuide.sections {
            XCTAssertEqual(section.keys.count, names(section).count, section.title)
            for key in section.keys {
                XCTAssertFalse(key.line.isEmpty, "\(section.title) \(key.name)")
                XCTAssertFalse(key.line.contains("\n"), "\(section.title) \(key.name): one line each")
            }
        }
    }
}

/// docs/CONFIGURATION.md's table of `hosts:` entries names the keys of
/// `HostKey.all`, the table the parser reads an entry with.
final class HostKeyDocumentationTests: XCTestCase {
    func testTheConfigurationDocTablesEveryHostKey() throws {
        let doc = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("docs/CONFIGURATION.md"), encoding: .utf8)
        let lines = doc.components(separatedBy: "\n")
        let start = try XCTUnwrap(lines.firstIndex(of: "## `hosts:` entries"), "the doc's hosts: section")
        let section = lines[(start + 1)...].prefix { !$0.hasPrefix("## ") }
        let documented = section.compactMap { line -> String? in
            guard line.hasPrefix("| `") else { return nil }
            return line.dropFirst(3).components(separatedBy: "`").first
        }
        XCTAssertEqual(documented.count, Set(documented).count, "a key has two rows: \(documented)")
        XCTAssertEqual(Set(documented), Set(HostKey.names), "docs/CONFIGURATION.md, hosts: entries")
    }
}
