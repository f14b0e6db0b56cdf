import Foundation
import PinwatchCore
import PinwatchProbe
import XCTest

@testable import pinwatch

/// `pinwatch check` as Nagios/Icinga runs it: the exit code is the state,
/// the first line starts `PINWATCH <STATE>` and carries perfdata after `|`.
final class CommandsCheckTests: LocalFleetTestCase {

    func testExitCodeIsTheWorstStateInNagiosOrder() throws {
        let ok = try fleet.addOK("ok.test")
        let leafOnly = try fleet.addLeafOnly("leafonly.test")
        let blocked = try fleet.addBlockedNoMatch("blocked.test")
        let refused = try fleet.addRefused("refused.test")

        let cases: [(hosts: [LocalFleet.Host], code: Int32, state: String)] = [
            ([ok], 0, "OK"),
            ([ok, leafOnly], 1, "WARNING"),
            ([ok, blocked], 2, "CRITICAL"),
            ([refused], 3, "UNKNOWN"),
            ([leafOnly, refused], 3, "UNKNOWN"),
            ([refused, blocked, leafOnly], 2, "CRITICAL"),
        ]
        for (index, expected) in cases.enumerated() {
            let names = expected.hosts.map(\.name).joined(separator: ", ")
            let config = try fleet.writeConfig(only: expected.hosts, name: "check-\(index).yaml")
            let outcome = try fleet.run(["check", "--config", config.path])
            XCTAssertEqual(outcome.status, expected.code, "[\(names)] \(outcome.stdout) \(outcome.stderr)")
            let lines = outcome.stdout.split(separator: "\n", omittingEmptySubsequences: false)
            let first = String(lines.first ?? "")
            XCTAssertTrue(first.hasPrefix("PINWATCH \(expected.state)"), "[\(names)] first line: \(first)")
            let parts = first.split(separator: "|", maxSplits: 1)
            XCTAssertEqual(parts.count, 2, "[\(names)] perfdata after '|': \(first)")
            let perfdata = parts.count == 2 ? String(parts[1]) : ""
            for (status, count) in Self.counts(expected.hosts, ok: ok, leafOnly: leafOnly, blocked: blocked, refused: refused) {
                XCTAssertTrue(perfdata.contains("\(status)=\(count)"), "[\(names)] perfdata \(perfdata) lacks \(status)=\(count)")
            }
            XCTAssertFalse(outcome.stdout.containsControlBytes)
        }
    }

    func testUsageErrorsAreUnknownNotCritical() throws {
        let outcome = try PinwatchBinary.run(["check", "--no-such-option"])
        XCTAssertEqual(outcome.status, 3, "a typo must not page someone as CRITICAL")
        XCTAssertTrue(outcome.stdout.hasPrefix("PINWATCH UNKNOWN - usage:"), outcome.stdout)
        XCTAssertTrue(outcome.stderr.contains("--no-such-option"), outcome.stderr)
    }

    func testHostsNeedingAttentionAreNamedBelowTheStatusLine() throws {
        try fleet.addOK("ok.test")
        try fleet.addLeafOnly("leafonly.test")
        try fleet.writeConfig()

        let outcome = try fleet.run(["check"])
        XCTAssertEqual(outcome.status, 1, outcome.stdout)
        let lines = outcome.stdout.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.dropFirst().contains { $0.contains("leafonly.test") && $0.contains("leaf_only") }, outcome.stdout)
        XCTAssertFalse(lines.dropFirst().contains { $0.contains("ok.test") }, "an ok host needs no attention: \(outcome.stdout)")
    }

    /// The plain lines a monitoring system runs skip ArgumentParser
    /// (`CheckCommandLine`); the same line in a form only ArgumentParser
    /// takes (an option repeated: the last wins) must give the same result.
    func testPlainLinesAndArgumentParserLinesAgree() throws {
        let ok = try fleet.addOK("ok.test")
        let leafOnly = try fleet.addLeafOnly("leafonly.test")
        let config = try fleet.writeConfig(only: [ok, leafOnly], name: "agree.yaml").path
        let pairs: [(plain: [String], parsed: [String])] = [
            (["check", "--config", config, "--state", "off"], ["check", "--config", config, "--state", "off", "--state", "off"]),
            (["check", "--config=\(config)", "--shard", "0/1"], ["check", "-c", "x", "-c", config, "--shard", "0/1"]),
            (["check", "-c", config, "--client", "nobody"], ["check", "-c", config, "--client", "x", "--client", "nobody"]),
            (["check", "--config", config + ".missing"], ["check", "--config", "x", "--config", config + ".missing"]),
        ]
        for (plain, parsed) in pairs {
            XCTAssertNotNil(CheckCommandLine.plain(plain), "\(plain) should be a plain line")
            XCTAssertNil(CheckCommandLine.plain(parsed), "\(parsed) should be ArgumentParser's")
            let fast = try fleet.run(plain)
            let slow = try fleet.run(parsed)
            XCTAssertEqual(fast.status, slow.status, "\(plain): \(fast.stdout) / \(slow.stdout)")
            XCTAssertEqual(fast.stdout, slow.stdout, "\(plain)")
            XCTAssertEqual(fast.stderr, slow.stderr, "\(plain)")
        }
        let warning = try fleet.run(["check", "--config", config, "--state", "off"])
        XCTAssertEqual(warning.status, 1, warning.stdout)
        XCTAssertTrue(warning.stdout.hasPrefix("PINWATCH WARNING"), warning.stdout)
    }

    /// `snapshot --format json|prometheus` lines skip ArgumentParser too
    /// (`SnapshotCommandLine`): same document, exit code and messages as
    /// the line ArgumentParser reads, but for the clock in it.
    func testPlainSnapshotLinesAndArgumentParserLinesAgree() throws {
        let ok = try fleet.addOK("ok.test")
        let leafOnly = try fleet.addLeafOnly("leafonly.test")
        let config = try fleet.writeConfig(only: [ok, leafOnly], name: "agree-snapshot.yaml").path
        let pairs: [(plain: [String], parsed: [String])] = [
            (
                ["snapshot", "--format", "json", "--config", config, "--state", "off"],
                ["snapshot", "--format", "json", "--config", config, "--state", "off", "--state", "off"]
            ),
            (
                ["snapshot", "--format=prometheus", "-c", config, "--shard", "0/1", "--state", "off"],
                ["snapshot", "--format=prometheus", "-c", "x", "-c", config, "--shard", "0/1", "--state", "off"]
            ),
            (
                ["snapshot", "--format", "json", "--config", config + ".missing"],
                ["snapshot", "--format", "json", "-c", "x", "-c", config + ".missing"]
            ),
        ]
        for (plain, parsed) in pairs {
            XCTAssertNotNil(SnapshotCommandLine.plain(plain), "\(plain) should be a plain line")
            XCTAssertNil(SnapshotCommandLine.plain(parsed), "\(parsed) should be ArgumentParser's")
            let fast = try fleet.run(plain)
            let slow = try fleet.run(parsed)
            XCTAssertEqual(fast.status, slow.status, "\(plain): \(fast.stderr) / \(slow.stderr)")
            XCTAssertEqual(Self.withoutClock(fast.stdout), Self.withoutClock(slow.stdout), "\(plain)")
            XCTAssertEqual(fast.stderr, slow.stderr, "\(plain)")
        }
        let json = try fleet.run(pairs[0].plain)
        XCTAssertEqual(json.status, 0, json.stderr)
        XCTAssertTrue(json.stdout.contains("\"leaf_only\": 1"), json.stdout)
    }

    /// Lines that carry the time of the run or of a probe.
    private static func withoutClock(_ text: String) -> [String] {
        text.split(separator: "\n").map(String.init).filter { line in
            !["generated_at", "probed_at", "elapsed", "duration", "finished", "_seconds", "age"].contains { line.contains($0) }
        }
    }

    /// An option added to `check` must be added to `CheckCommandLine` too,
    /// or the plain reader would refuse it while ArgumentParser takes it.
    func testHelpListsExactlyTheOptionsThePlainReaderKnows() throws {
        let help = try PinwatchBinary.run(["check", "--help"])
        XCTAssertEqual(help.status, 0, help.stderr)
        let options = help.stdout.components(separatedBy: "OPTIONS:").last ?? ""
        var listed = Set<String>()
        for line in options.split(separator: "\n") {
            let words = line.trimmingCharacters(in: .whitespaces).split(separator: " ")
            for word in words.prefix(2) where word.hasPrefix("-") {
                listed.insert(word.trimmingCharacters(in: CharacterSet(charactersIn: ",")))
            }
        }
        listed.subtract(["--version", "-h", "--help"])
        XCTAssertEqual(listed, Set(CheckCommandLine.optionNames), help.stdout)
    }

    private static func counts(
        _ hosts: [LocalFleet.Host], ok: LocalFleet.Host, leafOnly: LocalFleet.Host, blocked: LocalFleet.Host,
        refused: LocalFleet.Host
    ) -> [(String, Int)] {
        let names = hosts.map(\.name)
        func count(_ host: LocalFleet.Host) -> Int { names.filter { $0 == host.name }.count }
        return [
            ("ok", count(ok)), ("leaf_only", count(leafOnly)), ("blocked", count(blocked)),
            ("error", count(refused)), ("unpinned", 0),
        ]
    }
}
