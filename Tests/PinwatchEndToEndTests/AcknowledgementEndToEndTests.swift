import Foundation
import PinwatchCore
import PinwatchSystem
import PinwatchTestSupport
import XCTest

/// Snooze / acknowledge (docs/DESIGN.md §14) through the real binary: `silence:` in
/// the configuration for `check` and `validate`, and the dashboard's `a`
/// under tmux, stored in the history store that `check` then reads.
final class AcknowledgementEndToEndTests: LocalFleetTestCase {
    private var statePath: String { fleet.directory.appendingPathComponent("state.sqlite").path }
    private let day: TimeInterval = 86_400

    /// The fleet's configuration with `silence:` added to the host `name`.
    private func writeConfig(silencing name: String, until: String, reason: String, settings: [String] = []) throws {
        let written = try String(contentsOf: try fleet.writeConfig(settings: settings), encoding: .utf8)
        var lines = written.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let index = try XCTUnwrap(lines.firstIndex(of: "  - host: \(name)"))
        lines.insert("    silence: {until: \(until), reason: \"\(reason)\"}", at: index + 1)
        try fleet.write(lines.joined(separator: "\n"), to: "pinwatch.yaml")
    }

    func testCheckExitsByTheRemainingHostsWhileASilenceHoldsAndAnExpiredOneDoesNothing() throws {
        try fleet.addOK("ok.test")
        let retiring = try fleet.addLeafOnly("retiring.test")
        let name = "retiring.test:\(retiring.port)"
        let future = DateText.day(Date().addingTimeInterval(3 * day))
        try writeConfig(silencing: "retiring.test", until: future, reason: "backend retired on Friday")

        let silenced = try fleet.run(["check", "--state", "off"])
        XCTAssertEqual(silenced.status, 0, silenced.stdout + silenced.stderr)
        XCTAssertTrue(silenced.stdout.hasPrefix("PINWATCH OK - 2 hosts fine (1 ok, 1 acknowledged) | ok=1 leaf_only=1 "), silenced.stdout)
        XCTAssertTrue(silenced.stdout.contains("\n\(name) WARNING leaf_only: "), "the long output still lists it: \(silenced.stdout)")
        // 2026-12-15 holds through the whole 15th: it ends at the next midnight, UTC.
        let ends = DateText.day(Date().addingTimeInterval(4 * day))
        XCTAssertTrue(silenced.stdout.contains("; acknowledged until \(ends) 00:00 UTC: backend retired on Friday"), silenced.stdout)
        XCTAssertEqual(try fleet.run(["validate"]).status, 0)

        let json = try fleet.run(["snapshot", "--format", "json", "--state", "off"])
        let schema = try SnapshotSchema.validate(try fleet.write(json.stdout, to: "acknowledged.json").path)
        XCTAssertEqual(schema.status, 0, "the acknowledged object is in the schema: \(schema.stderr)")
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let hosts = try XCTUnwrap(document["hosts"] as? [[String: Any]])
        let acknowledged = try XCTUnwrap(hosts.first { $0["host"] as? String == "retiring.test" }?["acknowledged"] as? [String: Any])
        XCTAssertEqual(acknowledged["source"] as? String, "config")
        XCTAssertEqual(acknowledged["reason"] as? String, "backend retired on Friday")

        let past = DateText.day(Date().addingTimeInterval(-2 * day))
        try writeConfig(silencing: "retiring.test", until: past, reason: "backend retired on Friday")
        let expired = try fleet.run(["check", "--state", "off"])
        XCTAssertEqual(expired.status, 1, expired.stdout)
        XCTAssertTrue(expired.stdout.hasPrefix("PINWATCH WARNING - \(name) "), expired.stdout)
        XCTAssertFalse(expired.stdout.contains("acknowledged"), expired.stdout)
        let validate = try fleet.run(["validate"])
        XCTAssertEqual(validate.status, 1, validate.stdout + validate.stderr)
        XCTAssertTrue(
            validate.stderr.contains("pinwatch.yaml:"), validate.stderr)
        XCTAssertTrue(
            validate.stderr.contains("host \(name): silence.until \(DateText.day(Date().addingTimeInterval(-day))) 00:00 UTC has passed"),
            validate.stderr)
    }

    /// A host of several probes (`key_types:`) is acknowledged as a plain
    /// host is: `check` and `snapshot`, with the store and without, finish
    /// its report through the same steps `serve` does.
    func testCheckAndSnapshotHonourASilenceOnAHostOfSeveralKeyTypes() throws {
        try fleet.addOK("ok.test")
        let retiring = try fleet.addLeafOnly("retiring.test")
        let name = "retiring.test:\(retiring.port)"
        let future = DateText.day(Date().addingTimeInterval(3 * day))
        try writeConfig(
            silencing: "retiring.test", until: future, reason: "backend retired on Friday", settings: ["key_types: [ecdsa]"])

        for state in ["off", statePath] {
            let check = try fleet.run(["check", "--state", state])
            XCTAssertEqual(check.status, 0, "state \(state): \(check.stdout)\(check.stderr)")
            XCTAssertTrue(check.stdout.hasPrefix("PINWATCH OK - 2 hosts fine (1 ok, 1 acknowledged) "), check.stdout)
            XCTAssertTrue(check.stdout.contains("\n\(name) WARNING leaf_only: "), check.stdout)
            XCTAssertTrue(check.stdout.contains(": backend retired on Friday"), check.stdout)

            let json = try fleet.run(["snapshot", "--format", "json", "--state", state])
            XCTAssertEqual(json.status, 0, json.stderr)
            let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            let host = try XCTUnwrap((document["hosts"] as? [[String: Any]])?.first { $0["host"] as? String == "retiring.test" })
            XCTAssertEqual((host["key_types"] as? [[String: Any]])?.count, 1, "a host of key types: \(host)")
            let acknowledged = try XCTUnwrap(host["acknowledged"] as? [String: Any], "state \(state): \(host)")
            XCTAssertEqual(acknowledged["source"] as? String, "config")
            XCTAssertEqual(acknowledged["reason"] as? String, "backend retired on Friday")
        }
    }

    func testTheDashboardsAcknowledgementDimsTheRowLeavesTheBannerAndCheckHonoursIt() throws {
        try fleet.addOK("ok.test")
        let stale = try fleet.addLeafOnly("stale.test")
        let name = "stale.test:\(stale.port)"
        try fleet.writeConfig()
        let invocation = [PinwatchBinary.url.path, "watch", "--config", fleet.configURL.path, "--state", statePath, "--no-bell"]
            .map(TmuxSession.quote).joined(separator: " ")
        let session = try TmuxSession(
            command: invocation, columns: 150, rows: 24,
            environment: ["USER": "ana-oncall", "SWIFT_BACKTRACE": "interactive=no", "NO_COLOR": ""])
        defer { session.close() }
        try session.waitForScreen(timeout: 20) { $0.contains("LEAF ONLY \(name)") && !$0.contains("waiting") }

        // The selection starts on the worst host: stale.test.
        try session.send("a")
        try session.waitForScreen { $0.contains("acknowledge \(name) until: 7d") }
        try session.send("Enter")
        try session.waitForScreen { $0.contains("because:") }
        try session.type("app 5.2 ships Friday")
        try session.send("Enter")
        let screen = try session.waitForScreen { $0.contains("acknowledged \(name) until") }
        XCTAssertFalse(screen.contains("LEAF ONLY \(name)"), "the banner no longer counts it: \(screen)")
        XCTAssertTrue(screen.contains(" 1 acknowledged ") && !screen.contains(" 1 warning "), "the header counts it apart: \(screen)")
        let row = try XCTUnwrap(screen.split(separator: "\n").first { $0.contains(name) && $0.contains("leaf_only") }, screen)
        XCTAssertTrue(row.contains("~ leaf_only"), String(row))
        XCTAssertTrue(row.contains("acknowledged: app 5.2 ships Friday"), String(row))
        // Dimmed: the default theme's `dim` (bright black, SGR 90) on every
        // cell of the row, the selection bar moved off it first (colours are
        // under test, whatever NO_COLOR the runner has).
        try session.send("Down")
        let cellsOfRow = { (screen: String) -> [ColouredCharacter] in
            // tmux carries colours from one line to the next: the screen is read whole.
            let lines = SGRLine.characters(of: screen).split { $0.character == "\n" }
            return lines.first { String($0.map(\.character)).contains(name) }.map(Array.init) ?? []
        }
        let coloured = try session.waitForScreen(escapes: true) { cellsOfRow($0).first { $0.character == "~" }?.foreground == "90" }
        let cells = cellsOfRow(coloured).filter { $0.character != " " }
        XCTAssertFalse(cells.isEmpty, coloured)
        XCTAssertTrue(
            cells.allSatisfy { $0.foreground == "90" }, "every cell dimmed: \(cells.map { "\($0.character)\($0.foreground ?? "-")" })")

        // In the store with who and why: `check` and a snapshot beside the
        // running dashboard read it (the store is the dashboard's, locked).
        let check = try fleet.run(["check", "--state", statePath])
        XCTAssertEqual(check.status, 0, check.stdout + check.stderr)
        XCTAssertTrue(check.stdout.hasPrefix("PINWATCH OK - 2 hosts fine (1 ok, 1 acknowledged)"), check.stdout)
        XCTAssertTrue(check.stdout.contains(" by ana-oncall: app 5.2 ships Friday"), check.stdout)

        // `A` removes it: the banner and check's warning come back.
        try session.send("Up")
        try session.send("A")
        try session.waitForScreen { $0.contains("\(name) is no longer acknowledged") && $0.contains("LEAF ONLY \(name)") }
        let after = try fleet.run(["check", "--state", statePath])
        XCTAssertEqual(after.status, 1, after.stdout)

        // Acknowledged again, the dashboard gone: the exporter honours it from the store.
        try session.send("a")
        try session.waitForScreen { $0.contains("until: 7d") }
        try session.send("Enter")
        try session.type("retired")
        try session.send("Enter")
        try session.waitForScreen { $0.contains("acknowledged \(name) until") }
        try session.send("Q")
        XCTAssertEqual(try session.waitForExit(), 0)
        let port = try LocalPorts.closedPort()
        let serve = try BackgroundProcess(
            PinwatchBinary.url.path, ["serve", "--config", fleet.configURL.path, "--listen", "127.0.0.1:\(port)", "--state", statePath],
            directory: fleet.directory, name: "serve")
        defer { serve.stop() }
        try waitUntil(timeout: 20, "serve ready: \(serve.stderr)") {
            (try? LoopbackHTTP.get(port: port, "/-/ready", timeout: 2))?.status == 200
        }
        let metrics = try LoopbackHTTP.get(port: port, "/metrics").body
        XCTAssertTrue(metrics.contains("\npinwatch_host_acknowledged{host=\"stale.test\",port=\"\(stale.port)\""), metrics)
    }

    /// A reason holding a line or paragraph separator (a YAML escape away)
    /// cannot start a line of its own in check's output: a monitoring
    /// system reading lines would take it for another plugin's status.
    func testALineSeparatorInAReasonNeverReachesChecksOutputRaw() throws {
        let retiring = try fleet.addLeafOnly("retiring.test")
        let future = DateText.day(Date().addingTimeInterval(3 * day))
        try writeConfig(silencing: "retiring.test", until: future, reason: "ships Friday\\u2028PINWATCH OK - fine\\u2029\\x85really")
        let check = try fleet.run(["check", "--state", "off"])
        XCTAssertEqual(check.status, 0, check.stdout + check.stderr)
        XCTAssertTrue(check.stdout.contains("retiring.test:\(retiring.port) WARNING leaf_only: "), check.stdout)
        XCTAssertTrue(check.stdout.contains(": ships Friday\u{FFFD}PINWATCH OK - fine\u{FFFD}\u{FFFD}really"), check.stdout)
        XCTAssertFalse(check.stdout.unicodeScalars.contains { ["\u{2028}", "\u{2029}", "\u{85}"].contains($0) }, check.stdout)
    }

    /// Typing replaces the preselected `7d` (an RFC 3339 time, not `7d2026-…`);
    /// without USER or LOGNAME the password entry signs it; and the footer's
    /// "acknowledged … until" goes when the acknowledgement ends.
    func testTypingReplacesTheDefaultTheAccountSignsAndTheMessageEndsWithTheAcknowledgement() throws {
        let stale = try fleet.addLeafOnly("stale.test")
        let name = "stale.test:\(stale.port)"
        try fleet.writeConfig(settings: ["interval: 2s"], timeout: "1s")
        let invocation =
            ["env", "-u", "USER", "-u", "LOGNAME", PinwatchBinary.url.path, "watch", "--config", fleet.configURL.path]
            .map(TmuxSession.quote).joined(separator: " ") + " --state \(TmuxSession.quote(statePath)) --no-bell"
        let session = try TmuxSession(
            command: invocation, columns: 150, rows: 24, environment: ["SWIFT_BACKTRACE": "interactive=no"])
        defer { session.close() }
        try session.waitForScreen(timeout: 20) { $0.contains("LEAF ONLY \(name)") && !$0.contains("waiting") }

        try session.send("a")
        try session.waitForScreen { $0.contains("acknowledge \(name) until: 7d") && $0.contains("typing replaces it") }
        let formatter = ISO8601DateFormatter()
        let until = Date().addingTimeInterval(15)
        try session.type(formatter.string(from: until))
        try session.send("Enter")
        try session.waitForScreen { $0.contains("because:") }
        try session.type("failover drill")
        try session.send("Enter")
        try session.waitForScreen { $0.contains("acknowledged \(name) until") && $0.contains("~ leaf_only") }

        let check = try fleet.run(["check", "--state", statePath])
        if let account = LoginName.effectiveUserEntry() {
            XCTAssertTrue(check.stdout.contains(" by \(account): failover drill"), "signed by the account: \(check.stdout)")
        } else {
            // A uid without a password entry: unsigned, never an empty name.
            XCTAssertTrue(check.stdout.contains("; acknowledged until ") && !check.stdout.contains(" by :"), check.stdout)
        }

        // Ended, the host is news again, and the footer no longer says otherwise.
        let after = try session.waitForScreen(timeout: 40) { $0.contains("LEAF ONLY \(name)") }
        XCTAssertFalse(after.contains("acknowledged \(name) until"), after)
        XCTAssertGreaterThanOrEqual(Date(), until)
    }

    func testWithHistoryOffTheKeySaysWhyItCannotStore() throws {
        let stale = try fleet.addLeafOnly("stale.test")
        try fleet.writeConfig(settings: ["state: off"])
        let invocation = [PinwatchBinary.url.path, "watch", "--config", fleet.configURL.path, "--no-bell"]
            .map(TmuxSession.quote).joined(separator: " ")
        let session = try TmuxSession(command: invocation, columns: 150, rows: 24, environment: ["SWIFT_BACKTRACE": "interactive=no"])
        defer { session.close() }
        try session.waitForScreen(timeout: 20) { $0.contains("LEAF ONLY stale.test:\(stale.port)") }
        try session.send("a")
        let screen = try session.waitForScreen { $0.contains("cannot acknowledge: history is off") }
        XCTAssertTrue(screen.contains("LEAF ONLY stale.test:\(stale.port)"), "nothing changed: \(screen)")
    }
}
