import Foundation
import PinwatchLocalWorld
import PinwatchProbe
import PinwatchTestSupport
import XCTest

/// Configuration and usage errors: exit 2, one stderr line per problem,
/// and nothing probed with a half-valid configuration (DESIGN §4, §7).
final class CommandsConfigErrorTests: LocalFleetTestCase {

    /// Four mistakes in one file, the only host a black hole that would
    /// hold a probe for 30 s: each mistake is reported and nothing is dialled.
    private func writeBrokenConfig() throws -> (url: URL, blackHole: BlackHoleServer) {
        let blackHole = fleet.keep(try BlackHoleServer())
        let text = """
            timeout: 30s
            interval: 5 parsecs
            colour: blue
            hosts:
              - host: hole.test
                port: \(blackHole.port)
                connect: 127.0.0.1
                pinset: nosuch
                pins:
                  ca:
                    - sha256/AAAA

            """
        return (try fleet.write(text, to: "broken.yaml"), blackHole)
    }

    func testEveryProblemIsReportedWithFileLineAndKeyAndNothingIsProbed() throws {
        let (config, blackHole) = try writeBrokenConfig()
        let outcome = try fleet.run(["snapshot", "--format", "json", "--config", config.path], timeout: 25)
        XCTAssertEqual(outcome.status, 2, outcome.stderr)
        XCTAssertEqual(outcome.stdout, "", "no report from a half-valid configuration")

        let lines = outcome.stderr.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 4, "one line per problem:\n\(outcome.stderr)")
        let expected: [(line: Int, key: String, detail: String)] = [
            (2, "interval", "5 parsecs"),
            (3, "colour", "unknown key"),
            (8, "pinset", "nosuch"),
            (11, "ca", "sha256/AAAA"),
        ]
        for (line, key, detail) in expected {
            let hits = lines.filter { $0.contains("\(config.path):\(line):") && $0.contains(key) && $0.contains(detail) }
            XCTAssertEqual(hits.count, 1, "no line naming \(config.lastPathComponent):\(line) \(key) \(detail) in:\n\(outcome.stderr)")
        }
        XCTAssertTrue(lines.contains { $0.contains(":11:") && $0.contains("hole.test") }, "a bad pin names its host")
        XCTAssertEqual(blackHole.acceptedConnections, 0, "a broken configuration must not be probed")
    }

    func testCheckReportsAConfigurationErrorAsUnknownWithoutProbing() throws {
        let (config, blackHole) = try writeBrokenConfig()
        let outcome = try fleet.run(["check", "--config", config.path], timeout: 25)
        // A Nagios plugin that cannot run reports UNKNOWN (3), not CRITICAL (2).
        XCTAssertEqual(outcome.status, 3, outcome.stdout + outcome.stderr)
        XCTAssertTrue(outcome.stdout.hasPrefix("PINWATCH UNKNOWN"), outcome.stdout)
        XCTAssertTrue(outcome.stderr.contains("\(config.path):3: colour"), outcome.stderr)
        XCTAssertEqual(blackHole.acceptedConnections, 0)
    }

    func testMissingConfigurationSaysWhereItLooked() throws {
        let empty = fleet.directory.appendingPathComponent("home", isDirectory: true)
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let outcome = try PinwatchBinary.run(
            ["snapshot", "--format", "json"],
            environment: ["HOME": empty.path, "XDG_CONFIG_HOME": empty.appendingPathComponent("xdg").path],
            currentDirectory: empty, timeout: 20)
        XCTAssertEqual(outcome.status, 2)
        XCTAssertEqual(outcome.stdout, "")
        XCTAssertTrue(outcome.stderr.contains("no configuration found"), outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("--config"), "the message says how to fix it: \(outcome.stderr)")
        XCTAssertTrue(outcome.stderr.contains("pinwatch.yaml"), outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("`pinwatch init HOST…` writes one"), "a first run learns how to start: \(outcome.stderr)")
    }

    func testUnreadableExplicitConfigIsAnError() throws {
        let outcome = try fleet.run(["snapshot", "--config", fleet.directory.appendingPathComponent("absent.yaml").path])
        XCTAssertEqual(outcome.status, 2)
        XCTAssertTrue(outcome.stderr.contains("absent.yaml"), outcome.stderr)
    }

    func testUnknownFormatIsAUsageError() throws {
        try fleet.addOK("ok.test")
        try fleet.writeConfig()
        for arguments in [
            ["snapshot", "--format", "bogus"], ["inspect", "127.0.0.1:1", "--format", "bogus"], ["pin", "x.pem", "--format", "ansi"],
        ] {
            let outcome = try fleet.run(arguments)
            XCTAssertEqual(outcome.status, 2, "\(arguments): \(outcome.stderr)")
            XCTAssertTrue(outcome.stderr.contains("bogus") || outcome.stderr.contains("ansi"), "\(arguments): \(outcome.stderr)")
            XCTAssertEqual(outcome.stdout, "", "\(arguments)")
        }
    }
}
