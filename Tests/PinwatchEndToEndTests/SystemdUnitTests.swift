import Foundation
import PinwatchTestSupport
import XCTest

/// The shipped systemd unit (`contrib/systemd/pinwatch.service`): its
/// commands run as the unit runs them, on the built binary.
final class SystemdUnitTests: LocalFleetTestCase {
    private var processes: [BackgroundProcess] = []

    override func tearDown() {
        processes.forEach { $0.stop() }
        processes.removeAll()
        super.tearDown()
    }

    static var unit: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("contrib/systemd/pinwatch.service")
    }

    /// The words of the unit's `key=` line (the unit quotes nothing), with
    /// the installed binary and configuration replaced by the test's.
    func unitCommand(_ key: String, config: URL) throws -> [String] {
        let text = try String(contentsOf: Self.unit, encoding: .utf8)
        let line = try XCTUnwrap(
            text.split(separator: "\n").first { $0.hasPrefix("\(key)=") }, "the unit has a \(key)= line")
        let words = line.dropFirst(key.count + 1).split(separator: " ").map(String.init)
        XCTAssertEqual(words.first, "/usr/local/bin/pinwatch", line.description)
        return words.dropFirst().map { $0 == "/etc/pinwatch/config.yaml" ? config.path : $0 }
    }

    /// A silence that has ended is a warning: the exporter must still start
    /// after it (serve runs the file); an error in the file stops the start.
    func testTheStartCheckPassesWarningsAndFailsErrors() throws {
        let pin = "sha256/C5+lpZ7tcVwmwQIMcRtPbsQtWLABXhQzejna0wHFr8M="
        let ended = try fleet.write(
            """
            hosts:
              - host: past.test
                pins: {ca: [\(pin)]}
                silence: {until: 2020-01-31, reason: renewal window}
            """, to: "ended.yaml")
        let warned = try fleet.run(try unitCommand("ExecStartPre", config: ended))
        XCTAssertEqual(warned.status, 0, warned.stdout + warned.stderr)
        XCTAssertTrue(warned.stderr.contains("silence.until 2020-02-01 00:00 UTC has passed"), warned.stderr)
        XCTAssertTrue(warned.stdout.contains("valid, 1 host"), warned.stdout)

        let plain = try fleet.run(["validate", "--config", ended.path])
        XCTAssertEqual(plain.status, 1, "without the flag a warning still exits 1: \(plain.stderr)")

        let empty = try fleet.write("hosts: []\n", to: "empty.yaml")
        let nothing = try fleet.run(try unitCommand("ExecStartPre", config: empty))
        XCTAssertEqual(nothing.status, 0, nothing.stderr)
        XCTAssertTrue(nothing.stderr.contains("has no hosts"), nothing.stderr)

        let broken = try fleet.write(
            """
            intervall: 1m
            hosts:
              - host: past.test
                pins: {ca: [\(pin)]}
            """, to: "broken.yaml")
        let refused = try fleet.run(try unitCommand("ExecStartPre", config: broken))
        XCTAssertEqual(refused.status, 2, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("intervall: unknown key"), refused.stderr)
    }

    /// systemd is not PID 1 on the test machines, so the unit's sandbox is
    /// rebuilt from the settings it names that touch what pinwatch does:
    /// private PID and IPC namespaces, a /proc of the process's own
    /// (`ProcSubset=pid`, `ProtectProc=invisible`) and `UMask=0077`. In it
    /// the exporter reports its start time, a hook runs, and the history
    /// store is the owner's alone; `systemd-analyze verify` knows every key.
    func testTheUnitsSandboxKeepsHooksAndTheExportersOwnSeries() throws {
        let unit = try String(contentsOf: Self.unit, encoding: .utf8)
        let settings = Set(unit.split(separator: "\n").map(String.init))
        for setting in ["UMask=0077", "ProtectProc=invisible", "ProcSubset=pid", "PrivateIPC=yes", "RemoveIPC=yes"] {
            XCTAssertTrue(settings.contains(setting), "the unit sets \(setting)")
        }
        let unshare = try PinwatchBinary.runShell("unshare --mount --pid --ipc --fork true")
        try TestEnvironment.require(unshare.status == 0, "unshare is not available: \(unshare.stderr)", skip: { XCTSkip($0) })

        try fleet.addLeafOnly("stale.test")
        let ran = fleet.directory.appendingPathComponent("hook-ran")
        try fleet.writeConfig(
            settings: [
                "interval: 1s", "hooks:",
                "  - [/bin/sh, -c, 'cat > \"$0.tmp\" && mv \"$0.tmp\" \"$0\"', \(ran.path)]",
            ],
            timeout: "1s")
        let state = fleet.directory.appendingPathComponent("state/state.sqlite")
        let port = try LocalPorts.closedPort()
        let serve = PinwatchBinary.url.deletingLastPathComponent().appendingPathComponent("pinwatch-serve").path
        let words = [serve, "--config", fleet.configURL.path, "--listen", "127.0.0.1:\(port)", "--state", state.path]
        let inner =
            "umask 0077 && mount -t proc -o subset=pid,hidepid=invisible proc /proc && exec "
            + words.map(TmuxSession.quote).joined(separator: " ")
        let process = try BackgroundProcess(
            "/usr/bin/unshare", ["--mount", "--pid", "--ipc", "--fork", "--kill-child", "/bin/sh", "-c", inner],
            directory: fleet.directory, name: "sandboxed-serve")
        processes.append(process)
        try waitUntil(timeout: 20, "serve ready in the sandbox: \(process.stderr)") {
            (try? LoopbackHTTP.get(port: port, "/-/ready", timeout: 2))?.status == 200
        }
        try waitUntil(timeout: 20, "the hook ran: \(process.stderr)") { FileManager.default.fileExists(atPath: ran.path) }
        XCTAssertTrue(try String(contentsOf: ran, encoding: .utf8).contains("\"stale.test\""))

        let metrics = try LoopbackHTTP.get(port: port, "/metrics")
        for series in ["process_start_time_seconds ", "process_open_fds ", "process_resident_memory_bytes "] {
            XCTAssertTrue(metrics.body.contains("\n" + series), "\(series)without /proc/stat:\n\(metrics.body.suffix(1_500))")
        }
        let started = metrics.body.split(separator: "\n").first { $0.hasPrefix("process_start_time_seconds ") }
        let startTime = try XCTUnwrap(started.flatMap { Double($0.split(separator: " ")[1]) })
        XCTAssertLessThan(abs(startTime - Date().timeIntervalSince1970), 120, "the start time is the process's: \(startTime)")
        for suffix in ["", "-wal", "-shm"] {
            let mode = try FileManager.default.attributesOfItem(atPath: state.path + suffix)[.posixPermissions] as? NSNumber
            XCTAssertEqual(mode?.intValue, 0o600, "state.sqlite\(suffix)")
        }

        let copy = try fleet.write(
            unit.replacingOccurrences(of: "/usr/local/bin/pinwatch", with: PinwatchBinary.url.path), to: "pinwatch.service")
        let verify = try PinwatchBinary.runShell("systemd-analyze verify \(TmuxSession.quote(copy.path))")
        try TestEnvironment.require(
            verify.status != 127, "systemd-analyze is not installed: \(verify.stderr)", skip: { XCTSkip($0) })
        XCTAssertEqual(verify.status, 0, verify.stderr)
        XCTAssertEqual(verify.stdout + verify.stderr, "", "every key known, every path there")
    }
}
