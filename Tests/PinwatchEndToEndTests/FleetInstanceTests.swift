import Foundation
import PinwatchLocalWorld
import PinwatchTestSupport
import XCTest

/// `watch --prometheus` over a real Prometheus scraping two `serve` shards:
/// the detail view says what the series say and "not exported" for the
/// rest, an acknowledged host leaves the banner, the view refreshes as
/// often as the exporters poll, and a shard that stops keeps its rows,
/// marked stale, under a banner that names it.
final class FleetInstanceTests: XCTestCase {
    private var fleet: DashboardFleet!
    private var processes: [String: BackgroundProcess] = [:]

    override func setUpWithError() throws {
        fleet = try DashboardFleet(interval: "2s")
        // down.test is refused: critical, acknowledged on its instance, owned.
        var config = try String(contentsOf: fleet.configURL, encoding: .utf8)
        let marker = "- host: \(DashboardFleet.down)\n"
        let start = try XCTUnwrap(config.range(of: marker))
        let indent = String(config[start.upperBound...].prefix { $0 == " " })
        config.replaceSubrange(
            start,
            with: marker + indent + "silence: {until: 2099-12-31, reason: \"known outage\"}\n" + indent + "labels: {team: payments}\n"
                + indent + "runbook: https://runbooks.test/down\n")
        try config.write(to: fleet.configURL, atomically: true, encoding: .utf8)
    }

    override func tearDown() {
        processes.values.forEach { $0.stop() }
        fleet?.stop()
        super.tearDown()
    }

    private func startServe(_ name: String, shard: String) throws -> Int {
        let port = try LocalPorts.closedPort()
        let process = try BackgroundProcess(
            PinwatchBinary.url.path,
            ["serve", "--config", fleet.configURL.path, "--listen", "127.0.0.1:\(port)", "--shard", shard, "--state", "off"],
            directory: fleet.directory, name: name)
        processes[name] = process
        try waitUntil(timeout: 20, "\(name) ready: \(process.stderr)") {
            (try? LoopbackHTTP.get(port: port, "/-/ready", timeout: 2))?.status == 200
        }
        return port
    }

    /// The table's row of `name` (it starts with the host's name), not a banner line.
    private func row(_ screen: String, _ name: String) -> String? {
        screen.split(separator: "\n").map(String.init).first { line in
            line.trimmingCharacters(in: .whitespaces).hasPrefix(fleet.displayName(name))
                || line.contains(" \(fleet.displayName(name)) ") && !line.contains(fleet.displayName(name) + ":")
        }
    }

    func testTheDetailSaysWhatTheSeriesSayAndAStoppedShardStaysStale() throws {
        let shards = [try startServe("shard-0", shard: "0/2"), try startServe("shard-1", shard: "1/2")]
        let prometheus = try LocalPrometheus(scraping: shards, directory: fleet.directory)
        let invocation = [PinwatchBinary.url.path, "watch", "--prometheus", prometheus.url, "--no-bell"]
            .map(TmuxSession.quote).joined(separator: " ")
        let tmux = try TmuxSession(
            command: "bash -c " + TmuxSession.quote(invocation + "; echo EXITED:$?; sleep 30"), columns: 220, rows: 50)
        defer { tmux.close() }

        // Every host; the view asks as often as the exporters poll (2 s), not once a minute.
        let screen = try tmux.waitForScreen(timeout: 60) { screen in
            DashboardFleet.names.allSatisfy { screen.contains(self.fleet.displayName($0)) }
                && screen.contains("refresh every 2s")
        }
        XCTAssertTrue(screen.contains("exporters' cycle"), screen)
        XCTAssertTrue(row(screen, DashboardFleet.stale)?.contains("L✓ I✗ R✗") ?? false, "the failing CA pin is ✗ in the table:\n\(screen)")
        // Acknowledged on its instance: listed, out of the banner and the counts.
        XCTAssertTrue(screen.contains("1 acknowledged"), screen)
        XCTAssertFalse(screen.contains("1 unknown"), "the acknowledged (refused) host is not counted:\n\(screen)")
        XCTAssertFalse(screen.contains("\(fleet.displayName(DashboardFleet.down)): "), "the acknowledged host is in the banner:\n\(screen)")

        // The detail of a host whose CA pin fails: ✗, not "no pins of this tier".
        try tmux.send("/")
        try tmux.type(DashboardFleet.stale)
        try tmux.send("Enter")
        try tmux.send("Enter")
        let detail = try tmux.waitForScreen { $0.contains("detail: \(self.fleet.displayName(DashboardFleet.stale))") }
        XCTAssertTrue(detail.contains("✗ no configured pin matches"), detail)
        XCTAssertTrue(detail.contains("not exported"), detail)
        XCTAssertFalse(detail.contains("0001-01-01"), detail)
        XCTAssertTrue(detail.contains("instance  127.0.0.1:"), detail)
        try tmux.send("Escape")
        try tmux.send("/")
        try tmux.send("C-u")
        try tmux.type(DashboardFleet.down)
        try tmux.send("Enter")
        try tmux.send("Enter")
        let acknowledged = try tmux.waitForScreen { $0.contains("detail: \(self.fleet.displayName(DashboardFleet.down))") }
        XCTAssertTrue(acknowledged.contains("team=payments"), acknowledged)
        XCTAssertTrue(acknowledged.contains("https://runbooks.test/down"), acknowledged)
        XCTAssertTrue(acknowledged.contains("acknowledged on the instance"), acknowledged)
        try tmux.send("Escape")
        try tmux.send("/")
        try tmux.send("C-u")
        try tmux.send("Escape")
        try tmux.waitForScreen { !$0.contains("detail:") && !$0.contains("filter “") }

        // One shard stops: its rows stay, stale, and the banner names it.
        processes["shard-1"]?.stop()
        let outage = try tmux.waitForScreen(timeout: 30) { $0.contains("gone from Prometheus' answer: 127.0.0.1:\(shards[1])") }
        for name in DashboardFleet.names {
            XCTAssertTrue(outage.contains(fleet.displayName(name)), "\(name) vanished:\n\(outage)")
        }
        XCTAssertTrue(outage.contains("stale"), outage)
        XCTAssertFalse(outage.contains("127.0.0.1:\(shards[0]) ("), "the live shard is not gone:\n\(outage)")
        // Both gone: both named, every row kept, not "no series match".
        processes["shard-0"]?.stop()
        let both = try tmux.waitForScreen(timeout: 30) {
            $0.contains("serve instances gone") && $0.contains("127.0.0.1:\(shards[0]) (") && $0.contains("127.0.0.1:\(shards[1]) (")
        }
        XCTAssertEqual(DashboardFleet.names.filter { both.contains(fleet.displayName($0)) }.count, 4, both)
        XCTAssertFalse(both.contains("no pinwatch series match"), both)
        try tmux.send("q")
        try tmux.waitForScreen(timeout: 10) { $0.contains("EXITED:0") }
    }
}
