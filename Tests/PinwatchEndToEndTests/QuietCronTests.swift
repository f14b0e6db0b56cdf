import Foundation
import PinwatchLocalWorld
import PinwatchTestSupport
import XCTest

/// DESIGN §13 (one writer; README, "One writer"): next to a running `serve` that holds the
/// history store, `check` and `snapshot` read the store read-only and say
/// nothing on stderr, and `watch` opens it read-only instead of refusing.
final class QuietCronTests: LocalFleetTestCase {
    private var processes: [BackgroundProcess] = []

    override func tearDown() {
        processes.forEach { $0.stop() }
        processes.removeAll()
        super.tearDown()
    }

    private func cycles(_ port: Int) -> Int {
        let body = (try? LoopbackHTTP.get(port: port, "/metrics", timeout: 2).body) ?? ""
        let line = body.split(separator: "\n").first { $0.hasPrefix("pinwatch_cycles_total ") } ?? ""
        return Int(line.split(separator: " ").last ?? "") ?? 0
    }

    /// A serve on the fleet's configuration and `state`, after it has
    /// recorded a change of CA keys (`chain_changed`, which only the
    /// history knows).
    @discardableResult
    private func serveHoldingAChainChange(state: String, settings: [String] = []) throws -> (port: Int, server: LocalTLSServer) {
        let (server, _) = try fleet.serveLeaf("rotating.test")
        fleet.add(LocalFleet.Host(name: "rotating.test", port: server.port, ca: [LocalFleet.pin(fleet.root.certificate)]))
        try fleet.writeConfig(settings: ["interval: 1s", "state: \(state)"] + settings, timeout: "1s")
        let port = try LocalPorts.closedPort()
        let serve = try BackgroundProcess(
            PinwatchBinary.url.path, ["serve", "--config", fleet.configURL.path, "--listen", "127.0.0.1:\(port)"],
            directory: fleet.directory, name: "serve-\(port)")
        processes.append(serve)
        try waitUntil(timeout: 20, "serve never completed a cycle: \(serve.stderr)") { cycles(port) >= 1 }
        _ = try fleet.world.rotateIntermediate(of: server, hostName: "rotating.test", newIssuerName: "Rotated Issuing")
        try waitUntil(timeout: 20, "serve never saw the chain change: \(serve.stderr)") {
            ((try? LoopbackHTTP.get(port: port, "/metrics", timeout: 2).body) ?? "").contains("alert=\"chain_changed\"} 1")
        }
        return (port, server)
    }

    func testCheckAndSnapshotReadTheHeldStoreQuietly() throws {
        let state = fleet.directory.appendingPathComponent("state.sqlite").path
        try serveHoldingAChainChange(state: state)

        let check = try fleet.run(["check", "--config", fleet.configURL.path])
        XCTAssertEqual(check.stderr, "", "cron mails whatever reaches stderr")
        XCTAssertEqual(check.status, 1, check.stdout)
        XCTAssertTrue(check.stdout.hasPrefix("PINWATCH WARNING"), "the recorded chain change, read from the store: \(check.stdout)")

        let snapshot = try fleet.run(["snapshot", "--format", "json", "--config", fleet.configURL.path])
        XCTAssertEqual(snapshot.stderr, "")
        XCTAssertEqual(snapshot.status, 0)
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(snapshot.stdout.utf8)) as? [String: Any])
        let host = try XCTUnwrap((document["hosts"] as? [[String: Any]])?.first)
        XCTAssertNotNil(host["status_since"] as? String, "the store's history: \(host)")
        XCTAssertTrue((host["alerts"] as? [String])?.contains("chain_changed") == true, "\(host)")
    }

    /// The dashboard shows serve's history and leaves the hooks to serve:
    /// telling them from both would page twice.
    func testWatchOpensTheHeldStoreReadOnlyAndSaysSo() throws {
        let state = fleet.directory.appendingPathComponent("state.sqlite").path
        let told = fleet.directory.appendingPathComponent("told-by")
        // Each event's teller: the hook's parent, the pinwatch that ran it.
        let (port, server) = try serveHoldingAChainChange(
            state: state, settings: ["hooks:", "  - [/bin/sh, -c, 'cat > /dev/null; echo $PPID >> \(told.path)']"])
        let invocation = [PinwatchBinary.url.path, "watch", "--config", fleet.configURL.path, "--no-bell"].map(TmuxSession.quote)
            .joined(separator: " ")
        let session = try TmuxSession(command: invocation, columns: 160, rows: 20)
        defer { session.close() }
        let screen = try session.waitForScreen { $0.contains("rotating.test") && $0.contains("history read-only: serve (PID") }
        XCTAssertTrue(screen.contains("holds the store"), screen)
        XCTAssertNil(try session.exitStatus(), "watch keeps running")

        let toldBefore = (try? String(contentsOf: told, encoding: .utf8)) ?? ""
        server.stop()
        try session.waitForScreen { $0.contains("! error") }
        let cyclesThen = cycles(port)
        try waitUntil(timeout: 20, "serve's hook never told the error") {
            ((try? String(contentsOf: told, encoding: .utf8)) ?? "").count > toldBefore.count && cycles(port) >= cyclesThen + 2
        }
        let tellers = Set(((try? String(contentsOf: told, encoding: .utf8)) ?? "").split(separator: "\n"))
        XCTAssertEqual(tellers.count, 1, "one pinwatch told the hooks: \(tellers)")
    }
}
