import Foundation
import PinwatchProbe
import XCTest

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
