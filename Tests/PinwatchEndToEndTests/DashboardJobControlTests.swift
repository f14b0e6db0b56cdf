import Foundation
import XCTest

/// Ctrl-Z, `fg`, `q` from a real interactive shell: the shell's terminal
/// modes after the dashboard are the ones it had before (before a fix,
/// about one run in four used to leave `-icanon -echo`).
final class DashboardJobControlTests: XCTestCase {
    func testSuspendResumeRoundsLeaveTheShellModesAsTheyWere() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pinwatch-tstp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let binary = TmuxSession.quote(PinwatchBinary.url.path)

        for trial in 1...10 {
            let session = try TmuxSession(
                command: "bash --norc --noprofile -i", columns: 100, rows: 30,
                environment: ["SWIFT_BACKTRACE": "interactive=no", "NO_COLOR": "", "PS1": "ready$ "])
            defer { session.close() }
            let before = folder.appendingPathComponent("before-\(trial)").path
            let after = folder.appendingPathComponent("after-\(trial)").path

            try session.waitForScreen(timeout: 10) { $0.contains("ready$") }
            try session.type("cd \(TmuxSession.quote(folder.path)); stty -g > \(TmuxSession.quote(before))\n")
            try session.type("\(binary) demo --interval 1s --no-bell\n")
            try session.waitForScreen(timeout: 15) { $0.contains("built-in demo") && $0.contains("payments.demo") }

            for round in 1...3 {
                try session.send("C-z")
                let stopped = try session.waitForScreen(timeout: 10) { $0.components(separatedBy: "Stopped").count - 1 == round }
                XCTAssertFalse(stopped.contains("built-in demo  11 hosts"), "trial \(trial) round \(round): the shell's screen is back")
                try session.type("fg\n")
                try session.waitForScreen(timeout: 10) { $0.contains("built-in demo") && !$0.contains("Stopped") }
            }
            try session.send("q")
            try session.waitForScreen(timeout: 10) {
                $0.contains("Stopped") && $0.hasSuffix("ready$") || $0.split(separator: "\n").last?.hasPrefix("ready$") == true
            }
            // The marker's output (SAVED-2) differs from the typed line, so
            // the wait ends only once the shell has run it.
            try session.type("stty -g > \(TmuxSession.quote(after)); echo SAVED-$((1+1))\n")
            try session.waitForScreen(timeout: 10) { $0.contains("SAVED-2") }

            let modesBefore = try String(contentsOfFile: before, encoding: .utf8)
            let modesAfter = try String(contentsOfFile: after, encoding: .utf8)
            XCTAssertFalse(modesBefore.isEmpty)
            XCTAssertEqual(modesAfter, modesBefore, "trial \(trial): stty -g differs after three suspend/resume rounds and q")
        }
    }

    /// SIGCONT with no stop before it is only a redraw.
    func testContinueWithoutStopIsHarmless() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pinwatch-cont-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let go = folder.appendingPathComponent("go").path
        let sent = folder.appendingPathComponent("sent").path
        let invocation = [PinwatchBinary.url.path, "demo", "--interval", "1s", "--no-bell"].map(TmuxSession.quote).joined(separator: " ")
        // The inner shell becomes pinwatch (exec keeps its PID, $$), and its
        // background child sends the two SIGCONTs to that PID only, once the
        // test says the dashboard is up, then says they were sent.
        let waitForGo = "for i in $(seq 300); do [ -e \(TmuxSession.quote(go)) ] && break; sleep 0.1; done"
        let signals = "(\(waitForGo); kill -CONT $$; kill -CONT $$; touch \(TmuxSession.quote(sent))) & exec " + invocation
        let command = "bash -c " + TmuxSession.quote("bash -c " + TmuxSession.quote(signals) + "; echo EXITED:$?; sleep 30")
        let session = try TmuxSession(command: command, columns: 100, rows: 30, environment: ["SWIFT_BACKTRACE": "interactive=no"])
        defer { session.close() }
        try session.waitForScreen(timeout: 15) { $0.contains("built-in demo") && $0.contains("payments.demo") }
        XCTAssertTrue(FileManager.default.createFile(atPath: go, contents: nil))
        try waitUntil(timeout: 15, "the two SIGCONTs were sent") { FileManager.default.fileExists(atPath: sent) }
        // A frame painted after the signals: the dashboard went on running.
        let afterSignals = try session.capture()
        let screen = try session.waitForScreen(timeout: 10) { $0 != afterSignals && $0.contains("built-in demo") }
        XCTAssertFalse(screen.contains("EXITED"), screen)
        try session.send("q")
        let exited = try session.waitForScreen(timeout: 10) { $0.contains("EXITED:") }
        XCTAssertTrue(exited.contains("EXITED:0"), exited)
    }

    /// The terminal goes away under a running dashboard (an ssh session
    /// dropped, a tmux window killed): SIGHUP, then end of input. The
    /// dashboard leaves promptly instead of spinning on a dead terminal.
    func testDashboardLeavesWhenItsTerminalGoesAway() throws {
        let pidFile = FileManager.default.temporaryDirectory.appendingPathComponent("pinwatch-hangup-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: pidFile) }
        let invocation = [PinwatchBinary.url.path, "demo", "--interval", "1s", "--no-bell"].map(TmuxSession.quote).joined(separator: " ")
        let inner = "echo $$ > \(TmuxSession.quote(pidFile)); exec " + invocation
        let session = try TmuxSession(command: "bash -c " + TmuxSession.quote(inner), columns: 100, rows: 30)
        try session.waitForScreen(timeout: 15) { $0.contains("built-in demo") && $0.contains("payments.demo") }
        let text = try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let pid = try XCTUnwrap(pid_t(text))
        XCTAssertEqual(kill(pid, 0), 0, "the dashboard runs before the hang-up")

        session.close()
        let deadline = Date().addingTimeInterval(10)
        while kill(pid, 0) == 0, Date() < deadline { usleep(50_000) }
        let stillRunning = kill(pid, 0) == 0
        if stillRunning { kill(pid, SIGKILL) }
        XCTAssertFalse(stillRunning, "the dashboard outlived its terminal by 10 s")
    }
}
