import Foundation
import PinwatchLocalWorld
import PinwatchTestSupport
import XCTest

/// `watch --prometheus` runs the local dashboard's controller: its keys
/// behave as they do in `watch`, over a server on 127.0.0.1 answering one
/// pinwatch row.
final class FleetDashboardKeysTests: XCTestCase {
    private var peer: ScriptedPeer!
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("themes"), withIntermediateDirectories: true)
        let host = ["host": "api.test", "port": "443", "instance": "serve:1", "job": "pinwatch"]
        peer = try FakePrometheus.answering([
            FakePrometheus.sample(
                host.merging([
                    "__name__": "pinwatch_host_reason_info", "status": "ok", "severity": "ok", "headline": "ok", "tiers": "ca",
                    "reason": "a CA-tier pin matches",
                ]) { $1 }, "1"),
            FakePrometheus.sample(
                ["__name__": "pinwatch_last_cycle_timestamp_seconds", "instance": "serve:1", "job": "pinwatch"],
                "\(Date().timeIntervalSince1970)"),
        ])
    }

    override func tearDown() {
        peer?.stop()
        if let directory { try? FileManager.default.removeItem(at: directory) }
        super.tearDown()
    }

    /// `t` reaching a theme file that does not parse says why in the footer
    /// and keeps the theme on screen, as the local dashboard always did.
    func testABrokenThemeFileIsExplainedNotSkipped() throws {
        // "broken" sorts right after "default": the first `t` reaches it.
        try "roles: [never closed\n".write(
            to: directory.appendingPathComponent("themes/broken.yaml"), atomically: true, encoding: .utf8)
        let invocation = [
            PinwatchBinary.url.path, "watch", "--prometheus", "http://127.0.0.1:\(peer.port)", "--interval", "1s", "--no-bell",
        ]
        .map(TmuxSession.quote).joined(separator: " ")
        let inner = "cd \(TmuxSession.quote(directory.path)) && " + invocation
        // Colour on whatever NO_COLOR the runner has: without colour `t`
        // explains that instead of reaching the theme.
        let tmux = try TmuxSession(
            command: "bash -c " + TmuxSession.quote(inner + "; echo EXITED:$?; sleep 30"), columns: 160, rows: 30,
            environment: ["NO_COLOR": ""])
        defer { tmux.close() }
        try tmux.waitForScreen(timeout: 20) { $0.contains("api.test") }
        try tmux.send("t")
        let screen = try tmux.waitForScreen(timeout: 10) { $0.contains("theme broken:") }
        XCTAssertFalse(screen.contains("EXITED:"), screen)
        try tmux.send("q")
        try tmux.waitForScreen(timeout: 5) { $0.contains("EXITED:0") }
    }

    /// The theme asked for is read before the screen opens whatever the
    /// terminal, so a broken file is refused even with colour off; whether
    /// to draw in colour is decided once the screen is open.
    func testABrokenThemeIsRefusedAtStartEvenWithoutColour() throws {
        let broken = directory.appendingPathComponent("themes/broken.yaml")
        try "roles: [never closed\n".write(to: broken, atomically: true, encoding: .utf8)
        let invocation = [PinwatchBinary.url.path, "watch", "--prometheus", "http://127.0.0.1:\(peer.port)", "--theme", broken.path]
            .map(TmuxSession.quote).joined(separator: " ")
        let tmux = try TmuxSession(
            command: "bash -c " + TmuxSession.quote(invocation + "; echo EXITED:$?; sleep 30"), columns: 160, rows: 30,
            environment: ["NO_COLOR": "1"])
        defer { tmux.close() }
        let screen = try tmux.waitForScreen(timeout: 20) { $0.contains("EXITED:") }
        XCTAssertFalse(screen.contains("EXITED:0"), screen)
        XCTAssertTrue(screen.contains("pinwatch: theme:"), screen)
    }
}
