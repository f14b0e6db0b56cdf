import Foundation
import PinwatchLocalWorld
import PinwatchTestSupport
import XCTest

/// `watch --prometheus` and `snapshot --prometheus` against a server on
/// 127.0.0.1 whose answer holds values no pinwatch series has (any target
/// Prometheus scrapes can publish pinwatch's names): the row is shown, the
/// samples skipped and counted, nothing crashes; and a dashboard that dies
/// of a fatal signal all the same gives the terminal back whole.
final class FleetHostileAnswerTests: XCTestCase {
    private var peer: ScriptedPeer!
    /// The same series, each query answered as Prometheus would: the
    /// snapshot asks several.
    private var prometheus: ChunkingPrometheus!
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-hostile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let host = ["host": "api.test", "port": "443", "instance": "serve:1", "job": "pinwatch"]
        func series(_ name: String, _ extra: [String: String] = [:], _ value: String) -> ChunkingPrometheus.Series {
            ChunkingPrometheus.Series(host.merging(extra) { $1 }.merging(["__name__": name]) { $1 }, value)
        }
        let all = [
            series(
                "pinwatch_host_reason_info",
                ["status": "ok", "severity": "ok", "headline": "ok", "tiers": "ca", "reason": "a CA-tier pin matches"], "1"),
            series("pinwatch_chain_level_info", ["level": "0", "role": "leaf", "subject": "CN=api.test"], "1"),
            ChunkingPrometheus.Series(["__name__": "pinwatch_last_cycle_timestamp_seconds", "instance": "serve:1"], "1e19"),
            ChunkingPrometheus.Series(
                ["__name__": "pinwatch_last_cycle_timestamp_seconds", "instance": "serve:1", "job": "pinwatch"],
                "\(Date().timeIntervalSince1970)"),
            series("pinwatch_chain_level_not_after_timestamp_seconds", ["level": "0"], "1e300"),
            series("pinwatch_chain_level_not_after_timestamp_seconds", ["level": "1"], "-1e300"),
            series("pinwatch_pin_match", ["level": "0", "tier": "leaf"], "NaN"),
            series("pinwatch_host_alert", ["alert": "expiring"], "+Inf"),
        ]
        peer = try FakePrometheus.answering(all.map { FakePrometheus.sample($0.labels, $0.value) })
        prometheus = try ChunkingPrometheus(all)
    }

    override func tearDown() {
        peer?.stop()
        prometheus?.stop()
        if let directory { try? FileManager.default.removeItem(at: directory) }
        super.tearDown()
    }

    private var url: String { "http://127.0.0.1:\(peer.port)" }

    func testSnapshotShowsTheRowAndCountsTheSkippedSamples() throws {
        let outcome = try PinwatchBinary.run(
            ["snapshot", "--prometheus", prometheus.url.absoluteString, "--format", "text", "--width", "160"],
            environment: ["SWIFT_BACKTRACE": "enable=no"],
            currentDirectory: directory)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertTrue(outcome.stdout.contains("api.test"), outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("5 samples skipped"), outcome.stdout)
    }

    func testTheDashboardShowsTheRowAndDiesOfAFatalSignalWithTheTerminalWhole() throws {
        let pidFile = directory.appendingPathComponent("pid").path
        let invocation = [PinwatchBinary.url.path, "watch", "--prometheus", url, "--interval", "1s", "--no-bell"]
            .map(TmuxSession.quote).joined(separator: " ")
        let inner = "echo $$ > \(TmuxSession.quote(pidFile)); exec " + invocation
        let tmux = try TmuxSession(
            command: "bash -c " + TmuxSession.quote("bash -c " + TmuxSession.quote(inner) + "; echo EXITED:$?; sleep 30"), columns: 160,
            rows: 30, environment: ["SWIFT_BACKTRACE": "enable=no"])
        defer { tmux.close() }
        // Two answers at least: the refresh reads the same values again.
        let first = try tmux.waitForScreen(timeout: 20) { $0.contains("api.test") && $0.contains("5 samples skipped") }
        XCTAssertFalse(first.contains("EXITED:"), first)
        let served = peer.acceptedConnections
        try waitUntil(timeout: 10, "a second answer") { self.peer.acceptedConnections > served }
        XCTAssertEqual(try tmux.paneVariable("mouse_any_flag"), "1", "the dashboard asked for the mouse")
        XCTAssertEqual(try tmux.paneVariable("keypad_flag"), "1", "the dashboard set keypad mode")

        let pid = try XCTUnwrap(pid_t(String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        XCTAssertEqual(kill(pid, SIGILL), 0)
        let after = try tmux.waitForScreen(timeout: 10) { $0.contains("EXITED:") }
        XCTAssertTrue(after.contains("EXITED:132"), "died of SIGILL: \(after)")
        for flag in [
            "mouse_any_flag", "mouse_standard_flag", "mouse_button_flag", "mouse_sgr_flag", "keypad_flag", "keypad_cursor_flag",
            "alternate_on",
        ] {
            XCTAssertEqual(try tmux.paneVariable(flag), "0", "\(flag) left on after the crash")
        }
    }

    /// A server that never finishes its answer: the banner says why, at
    /// the query's deadline, and `snapshot` ends with it.
    func testAnAnswerThatNeverEndsIsABannerAtTheDeadline() throws {
        let dripping = try FakePrometheus.dripping(every: 0.5)
        defer { dripping.stop() }
        let invocation = [PinwatchBinary.url.path, "watch", "--prometheus", "http://127.0.0.1:\(dripping.port)", "--interval", "2s"]
            .map(TmuxSession.quote).joined(separator: " ")
        let tmux = try TmuxSession(
            command: "bash -c " + TmuxSession.quote(invocation + "; echo EXITED:$?; sleep 30"), columns: 160, rows: 20)
        defer { tmux.close() }
        let started = Date()
        try tmux.waitForScreen(timeout: 10) { $0.contains("Prometheus query timed out after 2 s") }
        XCTAssertLessThan(Date().timeIntervalSince(started), 2 + 3, "the first query's deadline is 2 s")
        try tmux.send("q")
        try tmux.waitForScreen(timeout: 5) { $0.contains("EXITED:0") }

        let endless = try FakePrometheus.streamingForever()
        defer { endless.stop() }
        let config = directory.appendingPathComponent("pinwatch.yaml")
        try "timeout: 20s\nhosts: []\n".write(to: config, atomically: true, encoding: .utf8)
        let peak = directory.appendingPathComponent("peak")
        let measured = [
            "/usr/bin/time", "-f", "%M", "-o", peak.path, PinwatchBinary.url.path, "snapshot", "--config", config.path, "--prometheus",
            "http://127.0.0.1:\(endless.port)", "--format", "text",
        ]
        let snapshot = try PinwatchBinary.runShell(measured.map(TmuxSession.quote).joined(separator: " "), timeout: 30)
        XCTAssertEqual(snapshot.status, 1, snapshot.stdout)
        XCTAssertTrue(snapshot.stderr.contains("Prometheus answered more than 64 MiB"), snapshot.stderr)
        // The bound is on memory, not only on what is parsed: URLSession
        // queued what it read past it (1.3 GB seen).
        // GNU time writes "Command exited with non-zero status 1" first.
        let report = try String(contentsOf: peak, encoding: .utf8)
        let kibibytes = try XCTUnwrap(report.split(separator: "\n").last.flatMap { Int($0) }, report)
        XCTAssertLessThan(kibibytes, 256 << 10, "peak resident memory \(kibibytes) KiB against a 64 MiB bound")
    }
}
