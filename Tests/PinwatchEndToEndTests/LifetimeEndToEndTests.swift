import Foundation
import PinwatchLocalWorld
import PinwatchProbe
import PinwatchTestSupport
import XCTest

/// Each level's lifetime and `renewal_overdue` through the real binary: a
/// local server whose 90-day leaf has used 70% of its life (27 days left,
/// more than warn_days) beside one a third into its life, in `snapshot`'s
/// JSON, `inspect`'s text and a running `serve`'s `/metrics`.
final class LifetimeEndToEndTests: ServeOnFleetTestCase {
    private var overdue: LocalFleet.Host!
    private var fresh: LocalFleet.Host!

    override func setUpWithError() throws {
        try super.setUpWithError()
        let caPin = [LocalFleet.pin(fleet.root.certificate)]
        let (overdueServer, overdueLeaf) = try fleet.serveLeaf("renewing.test", validity: .ending(inDays: 27, issuedDaysAgo: 63))
        overdue = fleet.add(
            LocalFleet.Host(name: "renewing.test", port: overdueServer.port, ca: caPin, leafCertificate: overdueLeaf.certificate))
        let (freshServer, freshLeaf) = try fleet.serveLeaf("fresh.test", validity: .ending(inDays: 60, issuedDaysAgo: 30))
        fresh = fleet.add(LocalFleet.Host(name: "fresh.test", port: freshServer.port, ca: caPin, leafCertificate: freshLeaf.certificate))
    }

    func testSnapshotJSONGivesLifetimesAndTheOverdueRenewal() throws {
        try fleet.writeConfig()
        let outcome = try fleet.run(["snapshot", "--format", "json", "--state", "off"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        try SnapshotJSON.assertExactKeys(outcome.stdout)
        let document = try SnapshotJSON.decode(outcome.stdout)

        let late = try document.host("renewing.test")
        XCTAssertEqual(late.status, "ok")
        XCTAssertEqual(late.alerts, ["renewal_overdue"])
        XCTAssertEqual(late.severity, "warning")
        XCTAssertEqual(late.headline, "renewal_overdue")
        XCTAssertEqual(
            late.reason, "the leaf has used 70% of its 90-day lifetime and has not been renewed: renewal may be failing (26 days left)")
        XCTAssertEqual(late.chain[0].lifetimeDays, 90)
        XCTAssertEqual(try XCTUnwrap(late.chain[0].lifetimeUsed), 0.7, accuracy: 0.002)
        XCTAssertEqual(document.summary.severity["warning"], 1)

        let onTime = try document.host("fresh.test")
        XCTAssertEqual(onTime.alerts, [])
        XCTAssertEqual(onTime.severity, "ok")
        XCTAssertEqual(onTime.chain[0].lifetimeDays, 90)
        XCTAssertEqual(try XCTUnwrap(onTime.chain[0].lifetimeUsed), 1.0 / 3, accuracy: 0.002)
        for level in late.chain + onTime.chain {
            XCTAssertGreaterThan(level.lifetimeDays, 0, "every level has a lifetime")
        }

        let probe = try PinwatchBinary.runShell("\(SnapshotSchema.python) -c 'import jsonschema'")
        try TestEnvironment.require(
            probe.status == 0, "python3-jsonschema is not installed: apt-get install python3-jsonschema", skip: { XCTSkip($0) })
        let verdict = try SnapshotSchema.validate(try fleet.write(outcome.stdout, to: "snapshot.json").path)
        XCTAssertEqual(verdict.status, 0, verdict.stderr)
    }

    /// `renew_share:` moves the point; `off` raises nothing.
    func testRenewShareMovesThePointAndOffTurnsItOff() throws {
        for (setting, alerts) in [("renew_share: 0.75", [String]()), ("renew_share: 0.6", ["renewal_overdue"]), ("renew_share: off", [])] {
            try fleet.writeConfig(settings: [setting])
            let outcome = try fleet.run(["snapshot", "--format", "json", "--state", "off"])
            XCTAssertEqual(outcome.status, 0, outcome.stderr)
            XCTAssertEqual(try SnapshotJSON.decode(outcome.stdout).host("renewing.test").alerts, alerts, setting)
        }
    }

    func testInspectShowsTheLifetimeLine() throws {
        let outcome = try fleet.run([
            "inspect", "renewing.test:\(overdue.port)", "--connect", "127.0.0.1", "--trust", fleet.trustURL.path,
        ])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let lines = outcome.stdout.split(separator: "\n").map(String.init)
        let leafLifetime = lines.first { $0.contains("lifetime") }
        XCTAssertNotNil(leafLifetime?.range(of: #"lifetime\s+90 days, 70% used$"#, options: .regularExpression), outcome.stdout)
    }

    /// The per-level not_before is deprecated: `deprecated_series: true`.
    func testServeExportsNotBeforeAndTheAlert() throws {
        try fleet.writeConfig(settings: ["deprecated_series: true"])
        let port = try startServe()
        let notBefore = Int(try XCTUnwrap(overdue.leafCertificate).facts.notBefore.timeIntervalSince1970)
        let labels = "host=\"renewing.test\",port=\"\(overdue.port)\",address=\"127.0.0.1\""
        var body = ""
        try waitUntil(timeout: 20, "the first cycle's series: \(body.prefix(2000))") {
            body = (try? LoopbackHTTP.get(port: port, "/metrics", timeout: 2))?.body ?? ""
            return body.contains("pinwatch_host_alert{")
        }
        XCTAssertTrue(
            body.contains("pinwatch_chain_level_not_before_timestamp_seconds{\(labels),level=\"0\",role=\"leaf\"} \(notBefore)\n"),
            body)
        XCTAssertTrue(body.contains("pinwatch_host_alert{\(labels),alert=\"renewal_overdue\"} 1\n"), body)
        XCTAssertTrue(body.contains("headline=\"renewal_overdue\""), body)
        XCTAssertFalse(body.contains("pinwatch_host_alert{host=\"fresh.test\""), "a leaf a third into its life: \(body)")
        XCTAssertTrue(
            body.contains(
                "pinwatch_chain_level_not_before_timestamp_seconds{host=\"fresh.test\",port=\"\(fresh.port)\",address=\"127.0.0.1\",level=\"0\",role=\"leaf\"} "
            ), body)
    }
}
