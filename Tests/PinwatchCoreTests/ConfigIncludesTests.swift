import Foundation
import PinwatchSystem
import XCTest

@testable import PinwatchCore

/// docs/CONFIGURATION.md, "Hosts from more than one file": `include:` and `file_sd:`,
/// read through the same injected reader and directory lister as the
/// commands use, on files in a temporary folder.
final class ConfigIncludesTests: XCTestCase {
    private let ca = "sha256/C5+lpZ7tcVwmwQIMcRtPbsQtWLABXhQzejna0wHFr8M="
    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "pinwatch-includes-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory + "/conf.d", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: directory + "/targets", withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func write(_ text: String, to name: String) throws {
        try text.write(toFile: directory + "/" + name, atomically: true, encoding: .utf8)
    }

    private func load(_ main: String) throws(ConfigError) -> Config {
        let path = directory + "/pinwatch.yaml"
        try? main.write(toFile: path, atomically: true, encoding: .utf8)
        return try ConfigLoader(
            certificateDigests: { _ in [] },
            readText: { path, limit throws(RegularFile.ReadError) in try RegularFile.readText(path, limit: limit) },
            listDirectory: { path, limit throws(RegularFile.ReadError) in try RegularFile.listDirectory(path, limit: limit) }
        ).load(path: path)
    }

    private func problems(_ main: String, file: StaticString = #filePath, line: UInt = #line) -> [ConfigProblem] {
        do {
            _ = try load(main)
            XCTFail("expected a configuration error", file: file, line: line)
            return []
        } catch {
            return error.problems
        }
    }

    func testIncludedHostsAndPinSetsJoinTheMainFilesInOrder() throws {
        try write("hosts:\n  - host: a1.example.com\n    pinset: shared\n  - host: a2.example.com\n", to: "conf.d/a.yaml")
        try write(
            "pinsets:\n  web:\n    ca: [\(ca)]\n    labels: {team: web}\nhosts:\n  - host: b1.example.com\n    pinset: web\n",
            to: "conf.d/b.yaml")
        try write("hosts:\n  - host: swap.example.com\n", to: "conf.d/.b.yaml.swp")
        try write("hosts:\n  - host: text.example.com\n", to: "conf.d/notes.txt")
        let config = try load(
            """
            include: [conf.d/*.yaml]
            pinsets:
              shared:
                ca: [\(ca)]
            hosts:
              - host: main.example.com
                pinset: web
            """)
        XCTAssertEqual(config.hosts.map(\.host), ["main.example.com", "a1.example.com", "a2.example.com", "b1.example.com"])
        guard config.hosts.count == 4 else { return }
        XCTAssertEqual(config.hosts[0].labels, ["team": "web"], "the main file's host uses an included pin set")
        XCTAssertEqual(config.hosts[1].pins.ca.count, 1)
        XCTAssertEqual(config.hosts[3].line, 6)
    }

    func testIncludedFilesHoldNoGlobalSettingsAndNoIncludes() {
        try? write("interval: 30s\ninclude: [more/*.yaml]\nhostz: []\n", to: "conf.d/a.yaml")
        let found = problems("include: conf.d/a.yaml\n")
        XCTAssertEqual(found.map(\.file), Array(repeating: directory + "/conf.d/a.yaml", count: 3), "\(found)")
        XCTAssertEqual(found.map(\.line), [1, 2, 3])
        XCTAssertTrue(found[0].message.contains("a global setting: it belongs in the main file"), "\(found)")
        XCTAssertTrue(found[1].message.contains("an included file cannot include others"), "\(found)")
        XCTAssertTrue(found[2].message.contains("did you mean hosts?"), "\(found)")
    }

    func testLoopsMissingFilesBrokenYAMLAndDuplicatesNameTheirFileAndLine() throws {
        try write("hosts:\n  - host: dup.example.com\n  - host: [broken\n", to: "conf.d/broken.yaml")
        let broken = problems("include: [conf.d/*.yaml, ./*.yaml, conf.d/missing.yaml]\n")
        XCTAssertEqual(broken.count, 3, "\(broken)")
        XCTAssertTrue(
            broken.contains { $0.file.hasSuffix("/pinwatch.yaml") && $0.message.contains("matches this file itself") }, "\(broken)")
        XCTAssertTrue(broken.contains { $0.file.hasSuffix("/conf.d/broken.yaml") && $0.message.contains("not valid YAML") }, "\(broken)")
        XCTAssertTrue(broken.contains { $0.file.hasSuffix("/conf.d/missing.yaml") && $0.message == "no such file" }, "\(broken)")

        try write("hosts:\n  - host: other.example.com\n  - host: dup.example.com\n", to: "conf.d/broken.yaml")
        let duplicate = problems("include: conf.d/*.yaml\nhosts:\n  - host: dup.example.com\n")
        XCTAssertEqual(duplicate.count, 1, "\(duplicate)")
        XCTAssertEqual(duplicate.first?.file, directory + "/conf.d/broken.yaml")
        XCTAssertEqual(duplicate.first?.line, 3)
        XCTAssertTrue(duplicate.first?.message.contains("first at \(directory)/pinwatch.yaml:3") == true, "\(duplicate)")

        let wildDirectory = problems("include: '*/hosts.yaml'\n")
        XCTAssertTrue(wildDirectory.first?.message.contains("wildcards only in the file name") == true, "\(wildDirectory)")
        let noDirectory = problems("include: nowhere/*.yaml\n")
        XCTAssertTrue(noDirectory.first?.message.contains("no such directory") == true, "\(noDirectory)")
    }

    func testIncludedFilesAreBoundedInNumber() throws {
        for index in 0...ConfigIncludes.maximumFiles {
            try write("hosts: []\n", to: "conf.d/\(index).yaml")
        }
        let found = problems("include: conf.d/*.yaml\n")
        XCTAssertEqual(found.count, 1, "\(found)")
        XCTAssertTrue(found.first?.message.contains("more than 256 included files") == true, "\(found)")
    }

    func testFileSDTargetsBecomeHostsWithTheirGroupsLabels() throws {
        try write(
            """
            [{"targets": ["api.example.com:8443", "www.example.com"],
              "labels": {"team": "payments", "__meta_source": "cmdb", "pinset": "shared"}}]
            """, to: "targets/a.json")
        try write("- targets: [static.example.com]\n  labels: {env: prod}\n", to: "targets/b.yml")
        let config = try load(
            """
            file_sd: [targets/*.json, targets/*.yml]
            pinsets:
              shared:
                ca: [\(ca)]
            """)
        XCTAssertEqual(config.hosts.map(\.displayName), ["api.example.com:8443", "www.example.com:443", "static.example.com:443"])
        guard config.hosts.count == 3 else { return }
        XCTAssertEqual(config.hosts[0].labels, ["team": "payments"], "__ labels are Prometheus's; pinset picks the pins")
        XCTAssertEqual(config.hosts[0].pinsetName, "shared")
        XCTAssertEqual(config.hosts[2].labels, ["env": "prod"])
        XCTAssertEqual(config.hosts[2].line, 1)

        try write(#"[{"targets": ["a.example.com"], "lables": {}, "labels": {"host": "x"}}, {"labels": {}}]"#, to: "targets/a.json")
        let found = problems("file_sd: targets/a.json\n")
        XCTAssertEqual(found.count, 3, "\(found)")
        XCTAssertTrue(found.contains { $0.key == "[1].targets" && $0.message.hasPrefix("missing") }, "\(found)")
        XCTAssertTrue(found.allSatisfy { $0.file == self.directory + "/targets/a.json" && $0.line == 1 }, "\(found)")
        XCTAssertTrue(found.contains { $0.message.contains("did you mean labels?") }, "\(found)")
        XCTAssertTrue(found.contains { $0.message.contains("a label pinwatch sets itself") }, "\(found)")
    }

    func testWildcardMatching() {
        func matches(_ name: String, _ pattern: String) -> Bool { ConfigIncludes.matches(Array(name), Array(pattern)[...]) }
        XCTAssertTrue(matches("a.yaml", "*.yaml"))
        XCTAssertTrue(matches("a.b.yaml", "*.yaml"))
        XCTAssertTrue(matches("hosts-1.yaml", "hosts-?.yaml"))
        XCTAssertTrue(matches("x", "*"))
        XCTAssertFalse(matches("a.yml", "*.yaml"))
        XCTAssertFalse(matches("hosts-12.yaml", "hosts-?.yaml"))
        XCTAssertFalse(matches("a.yaml.bak", "*.yaml"))
    }
}
