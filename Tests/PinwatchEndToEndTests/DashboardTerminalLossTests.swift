import Foundation
import XCTest

/// A dashboard whose terminal goes away at any moment (a cycle, a reload, a
/// hook starting) leaves (one outlived its tmux window once in
/// ten tries). Many tries, each at a random moment, each bounded.
final class DashboardTerminalLossTests: LocalFleetTestCase {
    func testTheDashboardLeavesWhateverItWasDoingWhenTheTerminalGoes() throws {
        try fleet.addOK("ok.test")
        try fleet.addLeafOnly("stale.test")
        try fleet.addRefused("down.test")
        try fleet.writeConfig(settings: ["interval: 1s", "hooks:", "  - [/bin/true]"], timeout: "1s")
        let config = fleet.directory.appendingPathComponent("pinwatch.yaml").path
        var generator = SystemRandomNumberGenerator()
        for attempt in 1...12 {
            let pidFile = fleet.directory.appendingPathComponent("pid-\(attempt)").path
            let invocation = [PinwatchBinary.url.path, "watch", "--config", config, "--no-bell"].map(TmuxSession.quote)
                .joined(separator: " ")
            let inner = "echo $$ > \(TmuxSession.quote(pidFile)); exec " + invocation
            let session = try TmuxSession(command: "bash -c " + TmuxSession.quote(inner), columns: 100, rows: 30)
            defer { session.close() }
            try session.waitForScreen(timeout: 15) { $0.contains("stale.test") }
            let pid = try XCTUnwrap(pid_t(String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
            // Anywhere in a cycle of a second (hooks start at its first
            // results); every other time with a reload under way too, the
            // others with keys arriving together with the hang-up.
            usleep(UInt32.random(in: 0...1_200_000, using: &generator))
            if attempt.isMultiple(of: 2) {
                kill(pid, SIGHUP)
            } else {
                try session.send("j", "k", "j")
            }
            session.close()
            let deadline = Date().addingTimeInterval(5)
            while Self.isAlive(pid), Date() < deadline { usleep(50_000) }
            let stillRunning = Self.isAlive(pid)
            if stillRunning { kill(pid, SIGKILL) }
            XCTAssertFalse(stillRunning, "try \(attempt): the dashboard outlived its terminal by 5 s")
        }
    }

    /// Gone, or a zombie nobody has reaped yet.
    private static func isAlive(_ pid: pid_t) -> Bool {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return false }
        return !status.contains("State:\tZ")
    }
}
