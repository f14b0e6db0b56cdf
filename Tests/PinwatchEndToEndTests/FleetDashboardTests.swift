import Foundation
import PinwatchLocalWorld
import PinwatchProbe
import PinwatchTestSupport
import XCTest

/// The fleet view (DESIGN §17): `watch --prometheus` over a real Prometheus scraping three
/// `serve` instances: two shards of the `lan` vantage, and an `office`
/// vantage whose traffic goes through a TLS-intercepting proxy.
final class FleetDashboardTests: XCTestCase {
    private var fleet: DashboardFleet!
    private var processes: [BackgroundProcess] = []
    private var servers: [any LocalServer] = []

    override func setUpWithError() throws {
        fleet = try DashboardFleet(interval: "1s")
    }

    override func tearDown() {
        processes.forEach { $0.stop() }
        servers.forEach { $0.stop() }
        fleet?.stop()
        super.tearDown()
    }

    /// `serve` on the fleet's configuration with `settings` in place of `proxy: off`.
    private func startServe(_ name: String, settings: [String], shard: String? = nil) throws -> Int {
        let base = try String(contentsOf: fleet.configURL, encoding: .utf8)
        let config = fleet.directory.appendingPathComponent("\(name).yaml")
        try base.replacingOccurrences(of: "proxy: off\n", with: settings.joined(separator: "\n") + "\n")
            .write(to: config, atomically: true, encoding: .utf8)
        let port = try LocalPorts.closedPort()
        let process = try BackgroundProcess(
            PinwatchBinary.url.path,
            ["serve", "--config", config.path, "--listen", "127.0.0.1:\(port)"] + (shard.map { ["--shard", $0] } ?? []),
            directory: fleet.directory, name: name)
        processes.append(process)
        try waitUntil(timeout: 20, "\(name) ready: \(process.stderr)") {
            (try? LoopbackHTTP.get(port: port, "/-/ready", timeout: 2))?.status == 200
        }
        return port
    }

    /// The table rows of `name` for `vantage` (`name:port @vantage`, padded),
    /// not the banner's lines (`name:port @vantage: reason`).
    private func rows(_ screen: String, _ name: String, _ vantage: String) -> [String] {
        screen.split(separator: "\n").map(String.init).filter { $0.contains("\(fleet.displayName(name)) @\(vantage) ") }
    }

    private func row(_ screen: String, _ name: String, _ vantage: String) -> String? {
        rows(screen, name, vantage).first
    }

    func testEveryVantageOnOneScreenThroughPrometheusAndItsOutage() throws {
        let inspectionCA = try CertificateAuthority.makeRoot(commonName: "Office Middlebox CA", organization: "Middlebox")
        let forged = try inspectionCA.issueLeaf(commonName: DashboardFleet.steady, dnsNames: DashboardFleet.names)
        let interceptor = try LocalTLSServer(identity: Identity(leaf: forged))
        let proxy = try ConnectProxyServer(interceptionPort: interceptor.port)
        servers += [interceptor, proxy]

        let lan0 = try startServe("lan-0", settings: ["proxy: off", "vantage: lan"], shard: "0/2")
        let lan1 = try startServe("lan-1", settings: ["proxy: off", "vantage: lan"], shard: "1/2")
        let office = try startServe("office", settings: ["proxy: http://127.0.0.1:\(proxy.port)", "vantage: office"])
        let prometheus = try LocalPrometheus(scraping: [lan0, lan1, office], directory: fleet.directory)

        let invocation = [
            PinwatchBinary.url.path, "watch", "--prometheus", prometheus.url, "--match", "{job=\"pinwatch\"}", "--interval", "1s",
        ]
        .map(TmuxSession.quote).joined(separator: " ")
        let tmux = try TmuxSession(
            command: "bash -c " + TmuxSession.quote(invocation + "; echo EXITED:$?; sleep 30"), columns: 200, rows: 40)
        defer { tmux.close() }

        // Every host once per vantage; the office rows intercepted, the lan ones not.
        let screen = try tmux.waitForScreen(timeout: 60) { screen in
            DashboardFleet.names.allSatisfy { name in
                ["lan", "office"].allSatisfy { vantage in self.row(screen, name, vantage) != nil }
            } && self.row(screen, DashboardFleet.steady, "office")?.contains("intercepted") == true
        }
        for name in DashboardFleet.names {
            for vantage in ["lan", "office"] {
                XCTAssertEqual(rows(screen, name, vantage).count, 1, "\(name) @\(vantage) once:\n\(screen)")
            }
        }
        XCTAssertTrue(row(screen, DashboardFleet.rotating, "office")?.contains("intercepted") ?? false, screen)
        XCTAssertFalse(row(screen, DashboardFleet.steady, "lan")?.contains("intercepted") ?? true, screen)
        XCTAssertTrue(screen.contains("prometheus \(prometheus.url)"), "the header names the source:\n\(screen)")
        XCTAssertTrue(screen.contains("2 vantages"), screen)
        XCTAssertTrue(screen.contains("vantages disagree"), screen)

        // The same screen as a picture for a runbook, from one query.
        let picture = try PinwatchBinary.run(["snapshot", "--prometheus", prometheus.url, "--format", "svg", "--width", "200"])
        XCTAssertEqual(picture.status, 0, picture.stderr)
        XCTAssertTrue(picture.stdout.hasPrefix("<svg") || picture.stdout.contains("<svg "), picture.stdout)
        XCTAssertTrue(picture.stdout.contains("\(fleet.displayName(DashboardFleet.steady)) @office"), picture.stdout)

        // The detail view from the series: the chain's subjects and pins.
        try tmux.send("s")
        try tmux.waitForScreen { $0.contains("config order") }
        try tmux.send("/")
        try tmux.type("steady")
        try tmux.send("Enter")
        try tmux.send("Enter")
        let detail = try tmux.waitForScreen { $0.contains("detail: \(self.fleet.displayName(DashboardFleet.steady)) @lan") }
        XCTAssertTrue(detail.contains("CN=\(DashboardFleet.steady)"), detail)
        XCTAssertTrue(detail.contains(fleet.steadyLeafPin), "the leaf's SPKI pin: \(detail)")
        try tmux.send("Escape")
        try tmux.send("/")
        try tmux.send("C-u")
        try tmux.send("Escape")
        try tmux.waitForScreen { !$0.contains("detail:") && !$0.contains("filter “") }

        // A rotation on one host reaches the screen within two scrape
        // intervals (plus serve's one-second cycle and the refresh).
        XCTAssertFalse(row(screen, DashboardFleet.rotating, "lan")?.contains("leaf_only") ?? true, screen)
        try fleet.rotateIntermediate()
        let rotatedAt = Date()
        try tmux.waitForScreen(timeout: 30) { self.row($0, DashboardFleet.rotating, "lan")?.contains("leaf_only") == true }
        XCTAssertLessThan(Date().timeIntervalSince(rotatedAt), 2 * 1 + 1 + 1 + 3, "the rotation took too long to show")

        // Prometheus stopped: a banner, no crash, the last rows kept.
        prometheus.stop()
        let outage = try tmux.waitForScreen(timeout: 20) { $0.contains("✗ Prometheus unreachable") }
        XCTAssertNotNil(row(outage, DashboardFleet.steady, "lan"), outage)
        XCTAssertFalse(outage.contains("EXITED:"), outage)
        let unreachable = try PinwatchBinary.run(["snapshot", "--prometheus", prometheus.url, "--format", "text"])
        XCTAssertEqual(unreachable.status, 1, unreachable.stdout)
        XCTAssertTrue(unreachable.stderr.contains("Prometheus unreachable"), unreachable.stderr)
        // Restarted on the same port and storage: the banner goes.
        try prometheus.start()
        try tmux.waitForScreen(timeout: 60) { !$0.contains("Prometheus unreachable") && self.row($0, DashboardFleet.steady, "lan") != nil }

        try tmux.send("q")
        try tmux.waitForScreen(timeout: 10) { $0.contains("EXITED:0") }

        // A selector that matches nothing: said in the banner, not an empty screen.
        let nothing = [PinwatchBinary.url.path, "watch", "--prometheus", prometheus.url, "--match", "job=\"elsewhere\""]
            .map(TmuxSession.quote).joined(separator: " ")
        let empty = try TmuxSession(command: "bash -c " + TmuxSession.quote(nothing + "; echo EXITED:$?; sleep 30"), columns: 160, rows: 20)
        defer { empty.close() }
        try empty.waitForScreen(timeout: 30) { $0.contains("✗ Prometheus answered, but no pinwatch series match {job=\"elsewhere\"}") }
        try empty.send("q")
        try empty.waitForScreen(timeout: 10) { $0.contains("EXITED:0") }
    }
}
