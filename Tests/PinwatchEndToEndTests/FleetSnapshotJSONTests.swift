import Foundation
import PinwatchTestSupport
import XCTest

/// `snapshot --prometheus URL --format json`: the fleet's rows as JSON
/// version 1, read from a server on 127.0.0.1 that answers as Prometheus.
final class FleetSnapshotJSONTests: XCTestCase {
    private var prometheus: ChunkingPrometheus!
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-json-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var series = [
            ChunkingPrometheus.Series(
                ["__name__": "pinwatch_last_cycle_timestamp_seconds", "instance": "serve:1", "job": "pinwatch"],
                "\(Date().timeIntervalSince1970)")
        ]
        for (name, status, severity) in [("b.test", "ok", "ok"), ("a.test", "blocked", "critical"), ("c.test", "ok", "ok")] {
            let host = ["host": name, "port": "443", "instance": "serve:1", "job": "pinwatch"]
            series.append(
                .init(
                    host.merging([
                        "__name__": "pinwatch_host_reason_info", "status": status, "severity": severity,
                        "headline": status == "ok" ? "ok" : "blocked", "tiers": status == "ok" ? "ca" : "", "reason": "why \(name)",
                    ]) { $1 }))
            series.append(
                .init(
                    host.merging(["__name__": "pinwatch_chain_level_info", "level": "0", "role": "leaf", "subject": "CN=\(name)"]) { $1 })
            )
        }
        prometheus = try ChunkingPrometheus(series)
    }

    override func tearDown() {
        prometheus?.stop()
        if let directory { try? FileManager.default.removeItem(at: directory) }
        super.tearDown()
    }

    func testTheFleetIsWrittenAsJSONVersionOne() throws {
        let outcome = try PinwatchBinary.run(
            ["snapshot", "--prometheus", prometheus.url.absoluteString, "--format", "json"], currentDirectory: directory)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any], outcome.stdout)
        XCTAssertEqual(document["version"] as? Int, 1)
        let hosts = try XCTUnwrap(document["hosts"] as? [[String: Any]])
        XCTAssertEqual(hosts.compactMap { $0["host"] as? String }, ["a.test", "b.test", "c.test"])
        XCTAssertEqual(hosts.compactMap { $0["status"] as? String }, ["blocked", "ok", "ok"])
        XCTAssertEqual(hosts.first?["reason"] as? String, "why a.test")
        let summary = try XCTUnwrap(document["summary"] as? [String: Any])
        XCTAssertEqual(summary["ok"] as? Int, 2)
        XCTAssertEqual(summary["blocked"] as? Int, 1)
        XCTAssertEqual((summary["severity"] as? [String: Any])?["critical"] as? Int, 1)
        XCTAssertGreaterThanOrEqual(prometheus.queries.count, 3, "the instances, a count, a chunk: \(prometheus.queries)")
    }

    func testTheExpositionIsNotAFleetFormat() throws {
        let outcome = try PinwatchBinary.run(
            ["snapshot", "--prometheus", prometheus.url.absoluteString, "--format", "prometheus"], currentDirectory: directory)
        XCTAssertNotEqual(outcome.status, 0)
        XCTAssertTrue(outcome.stderr.contains("use --format text, ansi, svg, html or json"), outcome.stderr)
        XCTAssertTrue(prometheus.queries.isEmpty, "refused before asking")
    }
}
