import Foundation
import PinwatchTestSupport
import XCTest

/// docs/CONFIGURATION.md, "Owners and runbooks": a host's `labels:` and `runbook:` (its
/// own over its pin set's) reach a hook's event and, through a real
/// Prometheus evaluating the shipped rules, the alert Alertmanager routes.
final class OwnerLabelsEndToEndTests: LocalFleetTestCase {
    private var processes: [BackgroundProcess] = []

    override func tearDown() {
        processes.forEach { $0.stop() }
        processes.removeAll()
        super.tearDown()
    }

    private static var contrib: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("contrib")
    }

    private func firstEvent(in folder: URL) -> [String: Any]? {
        let files = (try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? []
        for file in files {
            guard let data = try? Data(contentsOf: file), !data.isEmpty,
                let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            else { continue }
            return object
        }
        return nil
    }

    /// The alerts a Prometheus has firing or pending, as its API lists them.
    private func alerts(port: Int) -> [[String: Any]] {
        guard let answer = try? LoopbackHTTP.get(port: port, "/api/v1/alerts", timeout: 2),
            let document = try? JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any],
            let data = document["data"] as? [String: Any], let alerts = data["alerts"] as? [[String: Any]]
        else { return [] }
        return alerts
    }

    func testAServedHostsOwnersReachItsHookEventAndItsRoutedAlert() throws {
        _ = try prometheusTool("promtool")
        let amtool = try prometheusTool("amtool")
        let (server, leaf) = try fleet.serveLeaf("pay.test")
        fleet.add(
            LocalFleet.Host(
                name: "pay.test", port: server.port, ca: [try LocalFleet.unrelatedPin()], leaf: [LocalFleet.pin(leaf.certificate)],
                pinset: "payments", entryLines: ["labels: {env: prod}"]))
        try fleet.addOK("unowned.test")
        let events = fleet.directory.appendingPathComponent("events")
        try FileManager.default.createDirectory(at: events, withIntermediateDirectories: true)
        let hook = try fleet.write("#!/bin/sh\ncat > \"$1/$(date +%s%N).json\"\n", to: "hook.sh")
        chmod(hook.path, 0o755)
        let runbook = "https://wiki.example.com/runbooks/payments"
        try fleet.writeConfig(
            settings: [
                "interval: 1s",
                "pinsets:",
                "  payments:",
                "    labels: {team: payments, env: staging}",
                "    runbook: \(runbook)",
                "hooks:",
                "  - [\(hook.path), \(events.path)]",
            ],
            timeout: "1s")
        let port = try LocalPorts.closedPort()
        let serve = try BackgroundProcess(
            PinwatchBinary.url.path,
            ["serve", "--config", fleet.configURL.path, "--listen", "127.0.0.1:\(port)"],
            directory: fleet.directory, name: "serve-\(port)")
        processes.append(serve)

        // The hook: a host new in trouble (leaf_only) is an event, with its owners.
        var event: [String: Any] = [:]
        try waitUntil(timeout: 20, "no hook event: \(serve.stderr)") {
            guard let found = firstEvent(in: events) else { return false }
            event = found
            return true
        }
        XCTAssertEqual(event["host"] as? String, "pay.test")
        XCTAssertEqual(event["labels"] as? [String: String], ["team": "payments", "env": "prod"], "the host's env wins")
        XCTAssertEqual(event["runbook"] as? String, runbook)

        // The shipped rules join pinwatch_host_labels: the alert carries the team.
        let prometheus = try LocalPrometheus(
            scraping: [port], directory: fleet.directory,
            ruleFiles: [Self.contrib.appendingPathComponent("prometheus/pinwatch.rules.yml").path])
        var alert: [String: Any] = [:]
        try waitUntil(timeout: 60, "no leaf-only alert: \(prometheus.process?.stderr ?? "")") {
            guard
                let found = alerts(port: prometheus.port).first(where: {
                    ($0["labels"] as? [String: String])?["alertname"] == "PinnedClientsBreakAtNextLeafRenewal"
                })
            else { return false }
            alert = found
            return true
        }
        let labels = try XCTUnwrap(alert["labels"] as? [String: String])
        XCTAssertEqual(labels["host"], "pay.test")
        XCTAssertEqual(labels["team"], "payments")
        XCTAssertEqual(labels["runbook"], runbook)
        XCTAssertNil(labels["env"], "only the labels the rules name join")
        XCTAssertEqual((alert["annotations"] as? [String: String])?["runbook_url"], runbook)

        // Alertmanager's example routes that alert to the team's receiver.
        let route = try SpawnedCommand.run(
            amtool,
            ["config", "routes", "test", "--config.file", Self.contrib.appendingPathComponent("alertmanager/alertmanager.yml").path]
                + labels.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })
        XCTAssertEqual(route.status, 0, route.output)
        XCTAssertEqual(route.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "payments", route.output)
    }
}
