import Foundation
import PinwatchProbe
import PinwatchTestSupport
import XCTest

/// The history store through the real binary: restarts, a rotation seen
/// between two runs, `pinwatch history`, one writer, and kill -9.
final class HistoryEndToEndTests: LocalFleetTestCase {
    private var statePath: String { fleet.directory.appendingPathComponent("state.sqlite").path }

    func testARotationBetweenTwoSnapshotsIsInTheHistoryAndSinceSurvives() throws {
        let (rotating, leaf) = try fleet.serveLeaf("rotating.test")
        fleet.add(
            LocalFleet.Host(
                name: "rotating.test", port: rotating.port, ca: [LocalFleet.pin(fleet.root.certificate)], leafCertificate: leaf.certificate)
        )
        try fleet.addOK("steady.test")
        try fleet.writeConfig()

        let first = try fleet.run(["snapshot", "--format", "json", "--state", statePath])
        XCTAssertEqual(first.status, 0, first.stderr)
        let before = try SnapshotJSON.decode(first.stdout)
        let steadySince = try XCTUnwrap(try before.host("steady.test").statusSince)
        XCTAssertEqual(try before.host("rotating.test").changes24H, 0)
        XCTAssertEqual(try before.host("rotating.test").renewalEstimate?.basis, "lifetime")

        try fleet.world.rotateIntermediate(of: rotating, hostName: "rotating.test", newIssuerName: "Rotated Issuing CA")
        sleep(1)
        let second = try fleet.run(["snapshot", "--format", "json", "--state", statePath])
        XCTAssertEqual(second.status, 0, second.stderr)
        let after = try SnapshotJSON.decode(second.stdout)
        XCTAssertEqual(try after.host("steady.test").statusSince, steadySince, "since comes from the first run")
        let rotated = try after.host("rotating.test")
        XCTAssertEqual(rotated.status, "ok", "the root pin still matches")
        XCTAssertTrue(rotated.alerts.contains("chain_changed"), "\(rotated.alerts)")
        XCTAssertEqual(rotated.severity, "warning")
        XCTAssertTrue(
            rotated.reason.contains("CA-level keys changed (intermediate CN=E2E Issuing CA 1 → CN=Rotated Issuing CA)"), rotated.reason)

        let history = try fleet.run(["history", "rotating.test", "--state", statePath])
        XCTAssertEqual(history.status, 0, history.stderr)
        XCTAssertTrue(history.stdout.contains("first seen: CN=rotating.test"), history.stdout)
        XCTAssertTrue(history.stdout.contains("intermediate changed CN=E2E Issuing CA 1 → CN=Rotated Issuing CA"), history.stdout)
        XCTAssertTrue(history.stdout.contains("renews ~"), history.stdout)
        let json = try fleet.run(["history", "rotating.test:\(rotating.port)", "--state", statePath, "--format", "json"])
        let document = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let hosts = try XCTUnwrap(document?["hosts"] as? [[String: Any]])
        XCTAssertEqual(hosts.count, 1)
        XCTAssertEqual((hosts[0]["entries"] as? [[String: Any]])?.filter { $0["kind"] as? String == "chain" }.count, 2)

        let unknown = try fleet.run(["history", "nowhere.test", "--state", statePath])
        XCTAssertEqual(unknown.status, 1)
        XCTAssertTrue(unknown.stderr.contains("no history for \"nowhere.test\""), unknown.stderr)
    }

    func testOneWriterPerStateFileAndOneShotsStepAside() throws {
        try fleet.addOK("shared.test")
        try fleet.writeConfig(settings: ["interval: 1s"], timeout: "500ms")
        let port = try LocalPorts.closedPort()
        let serve = try BackgroundProcess(
            PinwatchBinary.url.path,
            ["serve", "--config", fleet.configURL.path, "--listen", "127.0.0.1:\(port)", "--state", statePath],
            directory: fleet.directory, name: "serve")
        defer { serve.stop() }
        try waitUntil(timeout: 20, "serve ready: \(serve.stderr)") {
            (try? LoopbackHTTP.get(port: port, "/-/ready", timeout: 2))?.status == 200
        }

        let second = try fleet.run(["serve", "--listen", "127.0.0.1:\(try LocalPorts.closedPort())", "--state", statePath], timeout: 20)
        XCTAssertEqual(second.status, 2)
        XCTAssertTrue(second.stderr.contains("is in use by pinwatch (PID \(serve.pid))"), second.stderr)

        let snapshot = try fleet.run(["snapshot", "--format", "text", "--state", statePath])
        XCTAssertEqual(snapshot.status, 0, snapshot.stderr)
        // Beside a writer (DESIGN §13), the held store is read read-only, quietly.
        XCTAssertEqual(snapshot.stderr, "", snapshot.stderr)
        let check = try fleet.run(["check", "--state", statePath])
        XCTAssertEqual(check.status, 0, check.stdout)
        XCTAssertEqual(check.stderr, "", "a plugin's output is its status line")
        let history = try fleet.run(["history", "shared.test", "--state", statePath])
        XCTAssertEqual(history.status, 0, "history reads while serve writes: \(history.stderr)")
    }

    /// A plain `check` line ends without the exit handlers; what it
    /// recorded must be in the store all the same, and the store whole.
    func testPlainCheckLinesRecordTheirCycles() throws {
        try fleet.addOK("plain.test")
        try fleet.writeConfig()
        for _ in 1...2 {
            let check = try fleet.run(["check", "--config", fleet.configURL.path, "--state", statePath])
            XCTAssertEqual(check.status, 0, check.stdout + check.stderr)
        }
        let history = try fleet.run(["history", "plain.test", "--state", statePath])
        XCTAssertEqual(history.status, 0, history.stderr)
        XCTAssertTrue(history.stdout.contains("first seen: CN=plain.test"), history.stdout)
        XCTAssertTrue(history.stdout.contains("status ok"), history.stdout)
    }

    /// `history` says what the dashboard said: an `ok` host 3 days from
    /// its leaf's end is `expiring (critical)`, not `ok (critical)`.
    func testHistoryNamesTheHeadlineNotTheStatusUnderIt() throws {
        try fleet.addExpiring("soon.test", daysLeft: 3.5)
        try fleet.writeConfig()
        let check = try fleet.run(["check", "--config", fleet.configURL.path, "--state", statePath])
        XCTAssertEqual(check.status, 2, check.stdout + check.stderr)
        let history = try fleet.run(["history", "soon.test", "--state", statePath])
        XCTAssertEqual(history.status, 0, history.stderr)
        XCTAssertTrue(history.stdout.contains("status expiring (critical): the leaf certificate expires in 3 days"), history.stdout)
        XCTAssertFalse(history.stdout.contains("status ok (critical)"), history.stdout)
    }

    /// kill -9 at arbitrary moments of a writer that records every second:
    /// each time the file opens again, nothing recorded before is gone.
    func testKillNineNeverLosesWhatWasRecorded() throws {
        let flapping = try fleet.keep(ScriptedPeer(.close))
        try fleet.addOK("steady.test")
        fleet.add(LocalFleet.Host(name: "flap.test", port: flapping.port, ca: [LocalFleet.pin(fleet.root.certificate)]))
        try fleet.writeConfig(settings: ["interval: 1s"], timeout: "300ms")
        var recordedBefore = 0
        var generator = SystemRandomNumberGenerator()
        for round in 1...6 {
            let port = try LocalPorts.closedPort()
            let serve = try BackgroundProcess(
                PinwatchBinary.url.path,
                ["serve", "--config", fleet.configURL.path, "--listen", "127.0.0.1:\(port)", "--state", statePath],
                directory: fleet.directory, name: "serve-\(round)")
            try waitUntil(timeout: 20, "serve \(round) ready: \(serve.stderr)") {
                (try? LoopbackHTTP.get(port: port, "/-/ready", timeout: 2))?.status == 200
            }
            usleep(UInt32.random(in: 100_000...1_600_000, using: &generator))
            serve.signal(SIGKILL)
            XCTAssertNotNil(serve.waitForExit(timeout: 5))

            let history = try fleet.run(["history", "steady.test", "--state", statePath, "--format", "json"])
            XCTAssertEqual(history.status, 0, "round \(round): \(history.stderr)")
            let lastSeen = try XCTUnwrap(
                ((try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [String: Any])?["hosts"] as? [[String: Any]])?
                    .first?["last_seen"] as? String, "round \(round)")
            let recorded = Int(ISO8601DateFormatter().date(from: lastSeen)?.timeIntervalSince1970 ?? 0)
            XCTAssertGreaterThanOrEqual(recorded, recordedBefore, "round \(round): last_seen went back")
            recordedBefore = recorded
        }
        // The writer's lock died with it: a new writer opens the file.
        let snapshot = try fleet.run(["snapshot", "--format", "json", "--state", statePath])
        XCTAssertEqual(snapshot.status, 0, snapshot.stderr)
        XCTAssertFalse(snapshot.stderr.contains("not recorded"), snapshot.stderr)
        XCTAssertNotNil(try SnapshotJSON.decode(snapshot.stdout).host("steady.test").statusSince)
    }

    /// A full file system under a running serve: a 2 MB tmpfs in a mount
    /// namespace of serve's own, filled from outside through
    /// /proc/PID/root. Recording fails every cycle, is logged and counted,
    /// and resumes once the space is freed, with the change made meanwhile.
    func testAFullDiskIsLoggedAndCountedAndRecordingResumesOnceSpaceIsFreed() throws {
        try TestEnvironment.require(
            getuid() == 0, "a tmpfs of the test's own needs root (a private mount namespace)", skip: { XCTSkip($0) })
        let probe = try PinwatchBinary.runShell("unshare --mount true")
        try TestEnvironment.require(probe.status == 0, "unshare --mount is not available: \(probe.stderr)", skip: { XCTSkip($0) })
        let (rotating, leaf) = try fleet.serveLeaf("rotating.test")
        fleet.add(
            LocalFleet.Host(
                name: "rotating.test", port: rotating.port, ca: [LocalFleet.pin(fleet.root.certificate)], leafCertificate: leaf.certificate)
        )
        try fleet.writeConfig(settings: ["interval: 1s"], timeout: "1s")
        let small = fleet.directory.appendingPathComponent("small")
        try FileManager.default.createDirectory(at: small, withIntermediateDirectories: true)
        let port = try LocalPorts.closedPort()
        let serve = try BackgroundProcess(
            "/usr/bin/unshare",
            [
                "--mount", "sh", "-c", "mount -t tmpfs -o size=2m tmpfs \"$1\" && shift && exec \"$@\"", "sh", small.path,
                PinwatchBinary.url.path, "serve", "--config", fleet.configURL.path, "--listen", "127.0.0.1:\(port)", "--state",
                small.appendingPathComponent("state.sqlite").path,
            ], directory: fleet.directory, name: "serve-full-disk")
        defer { serve.stop() }
        try waitUntil(timeout: 20, "serve ready: \(serve.stderr)") {
            (try? LoopbackHTTP.get(port: port, "/-/ready", timeout: 2))?.status == 200
        }
        let inside = "/proc/\(serve.pid)/root\(small.path)"
        let fill = try PinwatchBinary.runShell("dd if=/dev/zero of='\(inside)/filler' bs=64k 2>&1; df -k '\(inside)'")
        XCTAssertTrue(fill.stdout.contains("No space left on device"), fill.stdout + fill.stderr)
        try fleet.world.rotateIntermediate(of: rotating, hostName: "rotating.test", newIssuerName: "Rotated Issuing CA")

        try waitUntil(timeout: 20, "no failure logged: \(serve.stderr)") { serve.stderr.contains("history writes failing") }
        let writeErrors = { () -> Int in
            let body = (try? LoopbackHTTP.get(port: port, "/metrics").body) ?? ""
            let line = body.split(separator: "\n").first { $0.hasPrefix("pinwatch_history_write_errors_total ") } ?? ""
            return Int(line.split(separator: " ").last ?? "") ?? 0
        }
        try waitUntil(timeout: 10, "the failures are not counted") { writeErrors() >= 2 }
        XCTAssertEqual(serve.stderr.components(separatedBy: "history writes failing").count, 2, "logged once, not every cycle")

        XCTAssertEqual(unlink("\(inside)/filler"), 0, String(cString: strerror(errno)))
        try waitUntil(timeout: 20, "recording never resumed: \(serve.stderr)") { serve.stderr.contains("history recording resumed") }
        // Read inside serve's namespace: SQLite resolves /proc/PID/root to "/".
        let history = try PinwatchBinary.runShell(
            "nsenter --target \(serve.pid) --mount '\(PinwatchBinary.url.path)' history rotating.test --state '\(small.path)/state.sqlite'")
        XCTAssertEqual(history.status, 0, history.stderr)
        XCTAssertTrue(
            history.stdout.contains("intermediate changed CN=E2E Issuing CA 1 → CN=Rotated Issuing CA"),
            "the rotation made while the disk was full: \(history.stdout)")
    }

    /// `history` reads at any time, a read-only mount included (after the
    /// writer has gone, nobody can create the WAL index there).
    func testHistoryReadsAStateFileOnAReadOnlyMount() throws {
        try TestEnvironment.require(
            getuid() == 0, "a read-only mount of the test's own needs root (a private mount namespace)", skip: { XCTSkip($0) })
        let probe = try PinwatchBinary.runShell("unshare --mount true")
        try TestEnvironment.require(probe.status == 0, "unshare --mount is not available: \(probe.stderr)", skip: { XCTSkip($0) })
        try fleet.addOK("archived.test")
        try fleet.writeConfig()
        let folder = fleet.directory.appendingPathComponent("archive")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let state = folder.appendingPathComponent("state.sqlite").path
        let snapshot = try fleet.run(["snapshot", "--format", "json", "--state", state])
        XCTAssertEqual(snapshot.status, 0, snapshot.stderr)
        for format in ["text", "json"] {
            let history = try PinwatchBinary.runShell(
                """
                exec unshare --mount sh -c 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"' \
                    sh '\(folder.path)' '\(PinwatchBinary.url.path)' history archived.test --state '\(state)' --format \(format)
                """)
            XCTAssertEqual(history.status, 0, history.stderr)
            XCTAssertTrue(history.stdout.contains("first seen: CN=archived.test"), history.stdout)
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        XCTAssertEqual(files, ["state.sqlite", "state.sqlite.lock"], "nothing was left beside it")
    }

    /// A host in trouble when serve stops is still in trouble when it
    /// starts again: the hook heard of it once, and not at every restart.
    func testARestartDoesNotResendHookEventsForHostsStillInTheSameTrouble() throws {
        try fleet.addLeafOnly("stale.test")
        try fleet.addOK("fine.test")
        let events = fleet.directory.appendingPathComponent("events")
        try FileManager.default.createDirectory(at: events, withIntermediateDirectories: true)
        let hook = try fleet.write("#!/bin/sh\ncat > \"$1/$(date +%s%N).json\"\n", to: "hook.sh")
        chmod(hook.path, 0o755)
        try fleet.writeConfig(settings: ["interval: 1s", "hooks:", "  - [\(hook.path), \(events.path)]"], timeout: "1s")
        let eventCount = { (try? FileManager.default.contentsOfDirectory(atPath: events.path).count) ?? 0 }
        for round in 1...2 {
            let port = try LocalPorts.closedPort()
            let serve = try BackgroundProcess(
                PinwatchBinary.url.path,
                ["serve", "--config", fleet.configURL.path, "--listen", "127.0.0.1:\(port)", "--state", statePath],
                directory: fleet.directory, name: "serve-\(round)")
            defer { serve.stop() }
            let cycles = { () -> Int in
                let body = (try? LoopbackHTTP.get(port: port, "/metrics").body) ?? ""
                let line = body.split(separator: "\n").first { $0.hasPrefix("pinwatch_cycles_total ") } ?? ""
                return Int(line.split(separator: " ").last ?? "") ?? 0
            }
            try waitUntil(timeout: 20, "serve \(round) never finished three cycles: \(serve.stderr)") { cycles() >= 3 }
            // The log line is written when the transition is found; the hook's file a moment later.
            try waitUntil(timeout: 10, "the hook never ran: \(serve.stderr)") { round == 2 || eventCount() == 1 }
            XCTAssertEqual(eventCount(), 1, "round \(round): \(serve.stderr)")
            XCTAssertEqual(serve.stderr.components(separatedBy: "msg=\"severity changed\"").count - 1, round == 1 ? 1 : 0, serve.stderr)
        }
    }

    /// chain_changed is a state; Prometheus gets the event as a counter per
    /// host, there from the start at 0, counted once per change.
    func testServeCountsEachHostsChainChanges() throws {
        let (rotating, leaf) = try fleet.serveLeaf("rotating.test")
        fleet.add(
            LocalFleet.Host(
                name: "rotating.test", port: rotating.port, ca: [LocalFleet.pin(fleet.root.certificate)], leafCertificate: leaf.certificate)
        )
        try fleet.addOK("steady.test")
        try fleet.writeConfig(settings: ["interval: 1s"], timeout: "1s")
        let port = try LocalPorts.closedPort()
        let serve = try BackgroundProcess(
            PinwatchBinary.url.path,
            ["serve", "--config", fleet.configURL.path, "--listen", "127.0.0.1:\(port)", "--state", statePath],
            directory: fleet.directory, name: "serve-counting")
        defer { serve.stop() }
        let metric = { (host: String) -> Int? in
            let body = (try? LoopbackHTTP.get(port: port, "/metrics").body) ?? ""
            let line = body.split(separator: "\n").first { $0.hasPrefix("pinwatch_chain_changes_total{host=\"\(host)\"") }
            return line.flatMap { Int($0.split(separator: " ").last ?? "") }
        }
        try waitUntil(timeout: 20, "no counter: \(serve.stderr)") { metric("rotating.test") == 0 && metric("steady.test") == 0 }
        try fleet.world.rotateIntermediate(of: rotating, hostName: "rotating.test", newIssuerName: "Rotated Issuing CA")
        try waitUntil(timeout: 20, "the change was not counted: \(serve.stderr)") { metric("rotating.test") == 1 }
        let cycles = { () -> Int in
            let body = (try? LoopbackHTTP.get(port: port, "/metrics").body) ?? ""
            let line = body.split(separator: "\n").first { $0.hasPrefix("pinwatch_cycles_total ") } ?? ""
            return Int(line.split(separator: " ").last ?? "") ?? 0
        }
        let counted = cycles()
        try waitUntil(timeout: 20, "cycles stopped") { cycles() >= counted + 3 }
        XCTAssertEqual(metric("rotating.test"), 1, "once, while its warning holds")
        XCTAssertEqual(metric("steady.test"), 0)
    }

    func testBadStateFilesAreClearErrorsNamingTheWayOut() throws {
        try fleet.addOK("any.test")
        try fleet.writeConfig()
        let foreign = fleet.directory.appendingPathComponent("notes.txt").path
        try "my notes\n".write(toFile: foreign, atomically: true, encoding: .utf8)
        for arguments in [["snapshot", "--format", "json"], ["check"]] {
            let outcome = try fleet.run(arguments + ["--state", foreign])
            XCTAssertEqual(outcome.status, arguments[0] == "check" ? 3 : 2, outcome.stdout)
            XCTAssertTrue(outcome.stderr.contains("\(foreign): is not a pinwatch state file"), outcome.stderr)
            XCTAssertTrue(outcome.stderr.contains("--state off"), outcome.stderr)
        }
        XCTAssertEqual(try String(contentsOfFile: foreign, encoding: .utf8), "my notes\n", "never overwritten")
        let off = try fleet.run(["snapshot", "--format", "json", "--state", "off"])
        XCTAssertEqual(off.status, 0, off.stderr)
        XCTAssertNil(try SnapshotJSON.decode(off.stdout).host("any.test").statusSince, "no history with state off")
    }

    /// A monitoring user whose home cannot hold a state file: `check`
    /// still answers, without history, and says nothing extra.
    func testAnUnwritableDefaultStatePlaceDoesNotStopCheck() throws {
        try fleet.addOK("monitored.test")
        try fleet.writeConfig()
        let check = try fleet.run(["check"], environment: ["XDG_STATE_HOME": "/proc/pinwatch-nowhere"])
        XCTAssertEqual(check.status, 0, check.stdout + check.stderr)
        XCTAssertTrue(check.stdout.hasPrefix("PINWATCH OK"), check.stdout)
        XCTAssertEqual(check.stderr, "")
        let snapshot = try fleet.run(["snapshot", "--format", "json"], environment: ["XDG_STATE_HOME": "/proc/pinwatch-nowhere"])
        XCTAssertEqual(snapshot.status, 0, snapshot.stderr)
        XCTAssertTrue(snapshot.stderr.contains("history not recorded"), snapshot.stderr)
        // Asked for by name, the same place is an error.
        let explicit = try fleet.run(["check", "--state", "/proc/pinwatch-nowhere/state.sqlite"])
        XCTAssertEqual(explicit.status, 3, explicit.stdout)
        // A foreign file at the default place is never passed over in silence.
        let home = fleet.directory.appendingPathComponent("state-home")
        try FileManager.default.createDirectory(at: home.appendingPathComponent("pinwatch"), withIntermediateDirectories: true)
        try "not a database\n".write(to: home.appendingPathComponent("pinwatch/state.sqlite"), atomically: true, encoding: .utf8)
        let foreign = try fleet.run(["check"], environment: ["XDG_STATE_HOME": home.path])
        XCTAssertEqual(foreign.status, 3, foreign.stdout)
        XCTAssertTrue(foreign.stdout.contains("is not a pinwatch state file"), foreign.stdout)
    }
}
