import Foundation
import PinwatchCore
import PinwatchTestSupport
import XCTest

/// `serve` with a `silence:` (DESIGN §14): the transition it acknowledges
/// still reaches the hook, marked, and the exporter says so in a series a
/// real Prometheus scrapes.
final class ServeAcknowledgementTests: LocalFleetTestCase {
    private var processes: [BackgroundProcess] = []

    override func tearDown() {
        processes.forEach { $0.stop() }
        processes.removeAll()
        super.tearDown()
    }

    func testAnAcknowledgedTransitionIsDeliveredMarkedAndExported() throws {
        let (server, leaf) = try fleet.serveLeaf("retiring.test")
        fleet.add(
            LocalFleet.Host(
                name: "retiring.test", port: server.port, ca: [LocalFleet.pin(fleet.issuing.certificate)],
                leaf: [LocalFleet.pin(leaf.certificate)]))
        try fleet.addLeafOnly("other.test")
        let events = fleet.directory.appendingPathComponent("events")
        try FileManager.default.createDirectory(at: events, withIntermediateDirectories: true)
        let hook = try fleet.write("#!/bin/sh\ncat > \"$1/$(date +%s%N).json\"\n", to: "hook.sh")
        chmod(hook.path, 0o755)
        let written = try String(
            contentsOf: try fleet.writeConfig(settings: ["interval: 1s", "hooks:", "  - [\(hook.path), \(events.path)]"], timeout: "1s"),
            encoding: .utf8)
        let until = DateText.day(Date().addingTimeInterval(3 * 86_400))
        try fleet.write(
            written.replacingOccurrences(
                of: "  - host: retiring.test\n",
                with: "  - host: retiring.test\n    silence: {until: \(until), reason: \"backend retired Friday\"}\n"),
            to: "pinwatch.yaml")
        let port = try LocalPorts.closedPort()
        let serve = try BackgroundProcess(
            PinwatchBinary.url.path, ["serve", "--config", fleet.configURL.path, "--listen", "127.0.0.1:\(port)", "--state", "off"],
            directory: fleet.directory, name: "serve")
        processes.append(serve)
        try waitUntil(timeout: 20, "serve ready: \(serve.stderr)") {
            (try? LoopbackHTTP.get(port: port, "/-/ready", timeout: 2))?.status == 200
        }
        try fleet.world.rotateIntermediate(of: server, hostName: "retiring.test", newIssuerName: "Rotated Issuing")

        var event: [String: Any] = [:]
        try waitUntil(timeout: 20, "no hook event for retiring.test: \(serve.stderr)") {
            let files = (try? FileManager.default.contentsOfDirectory(at: events, includingPropertiesForKeys: nil)) ?? []
            for file in files {
                guard let data = try? Data(contentsOf: file), !data.isEmpty,
                    let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                    object["host"] as? String == "retiring.test"
                else { continue }
                event = object
                return true
            }
            return false
        }
        XCTAssertEqual((event["new"] as? [String: Any])?["status"] as? String, "leaf_only", "\(event)")
        let mark = try XCTUnwrap(event["acknowledged"] as? [String: Any], "\(event)")
        XCTAssertEqual(mark["reason"] as? String, "backend retired Friday")
        XCTAssertEqual(mark["source"] as? String, "config")
        XCTAssertEqual(mark["until"] as? String, DateText.day(Date().addingTimeInterval(4 * 86_400)) + "T00:00:00Z")

        let metrics = try LoopbackHTTP.get(port: port, "/metrics").body
        XCTAssertTrue(metrics.contains("\npinwatch_host_acknowledged{host=\"retiring.test\",port=\"\(server.port)\""), metrics)
        XCTAssertFalse(metrics.contains("pinwatch_host_acknowledged{host=\"other.test\""), "only while true: \(metrics)")

        let prometheus = try LocalPrometheus(scraping: [port], directory: fleet.directory)
        let prometheusProcess = try XCTUnwrap(prometheus.process)
        let query = "pinwatch_host_acknowledged%7Bhost%3D%22retiring.test%22%7D"
        try waitUntil(timeout: 60, "Prometheus never saw retiring.test acknowledged: \(prometheusProcess.stderr)") {
            guard let answer = try? LoopbackHTTP.get(port: prometheus.port, "/api/v1/query?query=\(query)", timeout: 2) else {
                return false
            }
            return answer.body.contains("\"value\":[") && answer.body.contains(",\"1\"]")
        }
    }
}
