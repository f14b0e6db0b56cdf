import Foundation
import PinwatchCore
import PinwatchLocalWorld
import PinwatchTestSupport
import XCTest

@testable import pinwatch

/// `check --host NAME[:PORT] -w DAYS -c DAYS --timeout DURATION`: one
/// Nagios service per host, as monitoring-plugins conventions expect.
final class CommandsCheckPerHostTests: LocalFleetTestCase {

    func testHostIsItsOwnServiceWithItsOwnPerfdataAndHeadline() throws {
        let ok = try fleet.addOK("ok.test")
        let expired = try fleet.addExpiring("expired.test", daysLeft: -24.5)
        let soonHost = try fleet.addExpiring("soon.test", daysLeft: 3.5)
        try fleet.writeConfig()

        let outcome = try fleet.run(["check", "--host", "expired.test:\(expired.port)"])
        XCTAssertEqual(outcome.status, 2, outcome.stdout + outcome.stderr)
        let lines = outcome.stdout.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines[0].contains("'expired.test:\(expired.port)_days'=-25;21:;7:"), lines[0])
        XCTAssertFalse(outcome.stdout.contains(ok.name), "only the host asked for: \(outcome.stdout)")
        XCTAssertTrue(lines[0].contains("ok=0 leaf_only=0 blocked=1"), "its own counts: \(lines[0])")
        XCTAssertEqual(lines.count, 2, outcome.stdout)
        XCTAssertTrue(lines[1].hasPrefix("expired.test:\(expired.port) CRITICAL blocked: "), lines[1])
        XCTAssertTrue(lines[1].hasSuffix("; leaf expired 25 days ago; alerts: untrusted, expired"), lines[1])
        XCTAssertFalse(lines[1].contains("-25 days"), lines[1])

        // An ok chain whose leaf ends within critical_days is what the table says: expiring.
        let soon = try fleet.run(["check", "--host", "soon.test"])
        XCTAssertEqual(soon.status, 2, soon.stdout)
        let soonLine = soon.stdout.split(separator: "\n").dropFirst().first.map(String.init) ?? ""
        XCTAssertTrue(soonLine.hasPrefix("soon.test:\(soonHost.port) CRITICAL expiring: "), soon.stdout)

        let byName = try fleet.run(["check", "--host", "OK.test"])
        XCTAssertEqual(byName.status, 0, byName.stdout)
        XCTAssertTrue(byName.stdout.hasPrefix("PINWATCH OK - 1 host fine"), byName.stdout)
    }

    func testUnknownHostIsUnknownAndNamesTheConfiguredHosts() throws {
        let ok = try fleet.addOK("ok.test")
        try fleet.writeConfig()
        let outcome = try fleet.run(["check", "--host", "nope.test"])
        XCTAssertEqual(outcome.status, 3, outcome.stdout)
        XCTAssertEqual(
            outcome.stdout,
            "PINWATCH UNKNOWN - --host nope.test is not in the configuration; configured hosts: ok.test:\(ok.port)\n")
        XCTAssertEqual(outcome.stderr, "", "the sentence is said once, not again on stderr")
    }

    /// One name and port behind two backends (`connect:`): the rows are
    /// `pair.test:PORT→127.0.0.2` and `→127.0.0.3`, and `check --host`
    /// takes that spelling (or its ASCII `->`) or `--connect`.
    func testOneOfSeveralEntriesOfANameAndPortIsPickedByItsRowOrConnect() throws {
        let pinned = try fleet.issuing.issueLeaf(commonName: "pair.test", dnsNames: ["pair.test"])
        let first = try fleet.keep(
            LocalTLSServer(identity: Identity(leaf: pinned, intermediates: [fleet.issuing.certificate]), loopback: "127.0.0.2"))
        let port = first.port
        let rotated = try fleet.otherIssuing.issueLeaf(commonName: "pair.test", dnsNames: ["pair.test"])
        fleet.keep(
            try LocalTLSServer(
                identity: Identity(leaf: rotated, intermediates: [fleet.otherIssuing.certificate]), port: port, loopback: "127.0.0.3"))
        let entries = ["127.0.0.2", "127.0.0.3"].map { address in
            """
              - host: pair.test
                port: \(port)
                connect: \(address)
                pins:
                  ca: [\(LocalFleet.pin(fleet.root.certificate))]
            """
        }
        let config = try fleet.write(
            "timeout: 3s\ntrust: trust.pem\nhosts:\n" + entries.joined(separator: "\n") + "\n", to: "pair.yaml"
        ).path

        let ambiguous = try fleet.run(["check", "--config", config, "--host", "pair.test:\(port)"])
        XCTAssertEqual(ambiguous.status, 3, ambiguous.stdout)
        XCTAssertEqual(
            ambiguous.stdout,
            "PINWATCH UNKNOWN - --host pair.test:\(port) names 2 hosts (pair.test:\(port)→127.0.0.2, pair.test:\(port)→127.0.0.3): "
                + "pick one as its row names it (--host 'pair.test:\(port)→127.0.0.2', or in ASCII 'pair.test:\(port)->127.0.0.2') "
                + "or with --connect 127.0.0.2\n")
        XCTAssertEqual(ambiguous.stderr, "")

        for (arguments, status) in [
            (["--host", "pair.test:\(port)→127.0.0.3"], 2), (["--host", "pair.test:\(port)->127.0.0.2"], 0),
            (["--host", "pair.test", "--connect", "127.0.0.3"], 2), (["--connect", "127.0.0.2", "--host", "pair.test:\(port)"], 0),
        ] {
            let picked = try fleet.run(["check", "--config", config] + arguments)
            XCTAssertEqual(picked.status, Int32(status), "\(arguments): \(picked.stdout)\(picked.stderr)")
            XCTAssertTrue(picked.stdout.contains(status == 0 ? "1 host fine" : "blocked=1"), "\(arguments): \(picked.stdout)")
            XCTAssertNotNil(CheckCommandLine.plain(["check", "--config", config] + arguments), "the plain reader takes \(arguments)")
        }
        let none = try fleet.run(["check", "--config", config, "--host", "pair.test:\(port)→127.0.0.9"])
        XCTAssertEqual(none.status, 3)
        XCTAssertEqual(none.stdout, "PINWATCH UNKNOWN - --host pair.test:\(port) has no entry with connect: 127.0.0.9\n")
    }

    /// `-w`/`-c` replace warn_days/critical_days in the verdict and the
    /// perfdata, read the same by the plain reader and by ArgumentParser;
    /// `-c PATH` is still the configuration.
    func testThresholdsOverrideTheConfigurationInBothReaders() throws {
        let soon = try fleet.addExpiring("soon.test", daysLeft: 14.5)
        // The leaf is 85% into its life: with renewal_overdue off, the days
        // thresholds alone decide.
        let config = try fleet.writeConfig(settings: ["renew_share: off"]).path
        let plain = ["check", "-c", config, "--host", "soon.test", "-w", "10", "-c", "5", "--timeout", "2s"]
        let parsed = [
            "check", "-c", config, "-c", "7", "--host", "x", "--host", "soon.test", "--warning", "10", "--critical=5", "--timeout", "2s",
        ]
        XCTAssertEqual(
            CheckCommandLine.plain(plain),
            CheckCommandLine(config: config, overrides: CheckOverrides(host: "soon.test", warningDays: 10, criticalDays: 5, timeout: "2s")))
        XCTAssertNil(CheckCommandLine.plain(parsed))
        let fast = try fleet.run(plain)
        let slow = try fleet.run(parsed)
        XCTAssertEqual(fast.status, 0, fast.stdout + fast.stderr)
        XCTAssertTrue(fast.stdout.contains("'soon.test:\(soon.port)_days'=14;10:;5:"), fast.stdout)
        XCTAssertEqual(fast.status, slow.status)
        XCTAssertEqual(fast.stdout, slow.stdout)

        let configured = try fleet.run(["check", "-c", config])
        XCTAssertEqual(configured.status, 1, "14 days is within warn_days 21: \(configured.stdout)")

        // With the default renew_share, 14 days past -w 10 still warn: the
        // renewal that should have replaced the leaf is overdue.
        let renewing = try fleet.writeConfig(name: "renewing.yaml").path
        let overdue = try fleet.run(["check", "-c", renewing, "--host", "soon.test", "-w", "10", "-c", "5"])
        XCTAssertEqual(overdue.status, 1, overdue.stdout)
        XCTAssertTrue(overdue.stdout.contains("has not been renewed: renewal may be failing (14 days left)"), overdue.stdout)

        let inverted = try fleet.run(["check", "-c", config, "-w", "5", "-c", "10"])
        XCTAssertEqual(inverted.status, 3, inverted.stdout)
        XCTAssertTrue(inverted.stdout.contains("--critical 10 must not be more than --warning 5"), inverted.stdout)
    }
}
