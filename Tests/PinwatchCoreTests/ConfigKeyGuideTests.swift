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
            (ConfigKeyGuide.hosts, Set(ConfigDocumentParser.hostKeys)),
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
