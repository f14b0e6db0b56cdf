import Foundation
import PinwatchTestSupport
import XCTest

/// `snapshot --prometheus --format json` over a real Prometheus scraping a
/// real `serve`: the document validates against docs/snapshot.schema.json,
/// and each row says what the same hosts probed directly say, or null
/// where the series do not carry it.
final class FleetSnapshotSchemaTests: XCTestCase {
    private var fleet: DashboardFleet!
    private var serve: BackgroundProcess?

    override func setUpWithError() throws {
        let probe = try PinwatchBinary.runShell("\(SnapshotSchema.python) -c 'import jsonschema'")
        try TestEnvironment.require(
            probe.status == 0, "python3-jsonschema is not installed: apt-get install python3-jsonschema", skip: { XCTSkip($0) })
        fleet = try DashboardFleet(interval: "1s")
    }

    override func tearDown() {
        serve?.stop()
        fleet?.stop()
        super.tearDown()
    }

    private func hosts(_ json: String) throws -> [String: [String: Any]] {
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any], json)
        let hosts = try XCTUnwrap(document["hosts"] as? [[String: Any]], json)
        return Dictionary(hosts.map { (($0["host"] as? String) ?? "", $0) }) { first, _ in first }
    }

    /// One `serve` of the fleet and a Prometheus scraping it, once every
    /// host is in Prometheus: its URL and the fleet's JSON then.
    private func startFleet() throws -> (prometheus: LocalPrometheus, json: String) {
        let port = try LocalPorts.closedPort()
        let serve = try BackgroundProcess(
            PinwatchBinary.url.path, ["serve", "--config", fleet.configURL.path, "--listen", "127.0.0.1:\(port)", "--state", "off"],
            directory: fleet.directory, name: "serve")
        self.serve = serve
        try waitUntil(timeout: 20, "serve ready: \(serve.stderr)") {
            (try? LoopbackHTTP.get(port: port, "/-/ready", timeout: 2))?.status == 200
        }
        let prometheus = try LocalPrometheus(scraping: [port], directory: fleet.directory)
        var fleetJSON = ""
        try waitUntil(timeout: 60, "every host in Prometheus: \(fleetJSON)") {
            let outcome = try PinwatchBinary.run(["snapshot", "--prometheus", prometheus.url, "--format", "json"])
            fleetJSON = outcome.stdout
            return outcome.status == 0 && Set((try? hosts(outcome.stdout))?.keys.map { $0 } ?? []) == Set(DashboardFleet.names)
        }
        return (prometheus, fleetJSON)
    }

    func testTheFleetsJSONMatchesTheSchemaAndTheProbesFacts() throws {
        let fleetJSON = try startFleet().json
        let file = fleet.directory.appendingPathComponent("fleet.json")
        try fleetJSON.write(to: file, atomically: true, encoding: .utf8)
        let verdict = try SnapshotSchema.validate(file.path)
        XCTAssertEqual(verdict.status, 0, verdict.stderr)

        let probed = try PinwatchBinary.run(["snapshot", "--config", fleet.configURL.path, "--format", "json", "--state", "off"])
        XCTAssertEqual(probed.status, 0, probed.stderr)
        let direct = try hosts(probed.stdout)
        let rows = try hosts(fleetJSON)
        for name in [DashboardFleet.steady, DashboardFleet.stale] {
            let row = try XCTUnwrap(rows[name])
            let probe = try XCTUnwrap(direct[name])
            for field in ["status", "headline", "trusted", "leaf_not_after", "earliest_not_after", "earliest_level"] {
                XCTAssertEqual("\(row[field] ?? "absent")", "\(probe[field] ?? "absent")", "\(name) \(field)")
            }
            XCTAssertTrue(row["elapsed_ms"] is NSNull, "\(name): an ok row's probe time is not read")
            let survives = try XCTUnwrap(row["survives"] as? [String: Any])
            XCTAssertEqual(survives as NSDictionary, probe["survives"] as? NSDictionary, "\(name): the instance's next-chain verdicts")
            XCTAssertTrue(survives.values.contains { $0 is Bool }, "\(name): some scenario is judged: \(survives)")
            let rowChain = try XCTUnwrap(row["chain"] as? [[String: Any]])
            let probeChain = try XCTUnwrap(probe["chain"] as? [[String: Any]])
            XCTAssertEqual(rowChain.count, probeChain.count, name)
            for (level, (fromSeries, fromProbe)) in zip(rowChain, probeChain).enumerated() {
                for field in ["level", "role", "subject", "spki_sha256"] {
                    XCTAssertEqual("\(fromSeries[field] ?? "absent")", "\(fromProbe[field] ?? "absent")", "\(name) level \(level) \(field)")
                }
                for field in ["from_server", "issuer", "not_before", "key", "key_sha256", "cert_sha256", "lifetime_days"] {
                    XCTAssertTrue(fromSeries[field] is NSNull, "\(name) level \(level) \(field): \(fromSeries[field] ?? "absent")")
                }
                // The leaf's and the earliest expiry are exported; the others are not.
                let dated = level == 0 || level == probe["earliest_level"] as? Int
                if dated {
                    XCTAssertEqual(fromSeries["not_after"] as? String, fromProbe["not_after"] as? String, "\(name) level \(level)")
                } else {
                    XCTAssertTrue(fromSeries["not_after"] is NSNull, "\(name) level \(level): \(fromSeries["not_after"] ?? "absent")")
                    XCTAssertTrue(fromSeries["days_left"] is NSNull, "\(name) level \(level)")
                }
            }
        }
        let refused = try XCTUnwrap(rows[DashboardFleet.down])
        XCTAssertEqual((refused["error"] as? [String: Any])?["kind"] as? String, "refused", "\(refused)")
        XCTAssertNotNil(refused["elapsed_ms"] as? Int, "a failed probe's time is read: \(refused)")
    }

    /// `--match` on a host's label: the exporter's own series (its cycle,
    /// its chains' CA levels) carry no host, and still come with the row.
    func testAMatchOnTheHostKeepsItsExportersSeries() throws {
        let prometheus = try startFleet().prometheus
        let match = #"{host="\#(DashboardFleet.stale)"}"#
        let json = try PinwatchBinary.run(["snapshot", "--prometheus", prometheus.url, "--match", match, "--format", "json"])
        XCTAssertEqual(json.status, 0, json.stderr)
        let row = try XCTUnwrap(try hosts(json.stdout)[DashboardFleet.stale], json.stdout)
        XCTAssertEqual(try hosts(json.stdout).count, 1, json.stdout)
        let chain = try XCTUnwrap(row["chain"] as? [[String: Any]])
        XCTAssertEqual(chain.map { $0["role"] as? String ?? "" }, ["leaf", "intermediate", "root"], "the CA levels: \(chain)")

        let text = try PinwatchBinary.run([
            "snapshot", "--prometheus", prometheus.url, "--match", match, "--format", "text", "--width", "200",
        ])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains("exporters' cycle"), text.stdout)
        XCTAssertTrue(text.stdout.contains("L✓ I✗ R✗"), "the failing CA pin at its levels:\n\(text.stdout)")

        let invocation = [PinwatchBinary.url.path, "watch", "--prometheus", prometheus.url, "--match", match, "--no-bell"]
            .map(TmuxSession.quote).joined(separator: " ")
        let tmux = try TmuxSession(
            command: "bash -c " + TmuxSession.quote(invocation + "; echo EXITED:$?; sleep 30"), columns: 200, rows: 70)
        defer { tmux.close() }
        let screen = try tmux.waitForScreen(timeout: 30) { $0.contains(self.fleet.displayName(DashboardFleet.stale)) }
        XCTAssertTrue(screen.contains("exporters' cycle"), screen)
        XCTAssertTrue(screen.contains("L✓ I✗ R✗"), screen)
        // The detail asks for what only it shows: the instance's next-chain verdicts among them.
        try tmux.send("Enter")
        let detail = try tmux.waitForScreen(timeout: 30) { $0.contains("next chains (the instance's verdicts") }
        XCTAssertTrue(detail.contains("leaf renewal"), detail)
        XCTAssertFalse(detail.contains("sent by the server") || detail.contains("from the trust store"), "not exported: \(detail)")
    }
}
