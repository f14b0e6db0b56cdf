import Foundation
import PinwatchLocalWorld
import PinwatchProbe
import PinwatchTestSupport
import XCTest

/// `pinwatch serve`, `--format prometheus` and the shipped Prometheus
/// files, against a real promtool and a real Prometheus (DESIGN §16).
final class ServeTests: LocalFleetTestCase {
    private var processes: [BackgroundProcess] = []

    override func tearDown() {
        processes.forEach { $0.stop() }
        processes.removeAll()
        super.tearDown()
    }

    private static var repository: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// Runs promtool with `arguments`; stdin from `input` when given.
    private func promtool(_ arguments: [String], input: String? = nil) throws -> SpawnedCommand.Outcome {
        let promtool = try prometheusTool("promtool")
        if let input {
            let file = try fleet.write(input, to: "input-\(UUID().uuidString).txt")
            let words = ([promtool] + arguments).map(TmuxSession.quote).joined(separator: " ")
            return try SpawnedCommand.run("/bin/sh", ["-c", "\(words) < \(TmuxSession.quote(file.path))"])
        }
        return try SpawnedCommand.run(promtool, arguments)
    }

    private func startServe(_ extra: [String] = [], config: String = "pinwatch.yaml") throws -> (process: BackgroundProcess, port: Int) {
        let port = try LocalPorts.closedPort()
        let process = try BackgroundProcess(
            PinwatchBinary.url.path,
            ["serve", "--config", fleet.directory.appendingPathComponent(config).path, "--listen", "127.0.0.1:\(port)"] + extra,
            directory: fleet.directory, name: "serve-\(port)")
        processes.append(process)
        try waitUntil(timeout: 20, "serve ready: \(process.stderr)") {
            (try? LoopbackHTTP.get(port: port, "/-/ready", timeout: 2))?.status == 200
        }
        return (process, port)
    }

    // MARK: The shipped files

    func testShippedRulesAndScrapeConfigPassPromtool() throws {
        let contrib = Self.repository.appendingPathComponent("contrib/prometheus")
        let rules = try promtool(["check", "rules", contrib.appendingPathComponent("pinwatch.rules.yml").path])
        XCTAssertEqual(rules.status, 0, rules.output)
        XCTAssertTrue(rules.output.contains("SUCCESS: 19 rules found"), rules.output)
        let config = try promtool(["check", "config", contrib.appendingPathComponent("prometheus.yml").path])
        XCTAssertEqual(config.status, 0, config.output)
        XCTAssertTrue(config.output.contains("SUCCESS: 1 rule files found"), config.output)
    }

    /// DESIGN §16: the rules fire on what pinwatch decided (its
    /// alerts follow warn_days), at once for what does not flap, and quote
    /// pinwatch's reason; `promtool test rules` runs their unit tests.
    func testShippedRulesPassTheirUnitTests() throws {
        let contrib = Self.repository.appendingPathComponent("contrib/prometheus")
        let promtool = try prometheusTool("promtool")
        let outcome = try SpawnedCommand.run(
            "/bin/sh", ["-c", "cd \(TmuxSession.quote(contrib.path)) && \(promtool) test rules pinwatch.rules.test.yml"])
        XCTAssertEqual(outcome.status, 0, outcome.output)
        XCTAssertTrue(outcome.output.contains("SUCCESS"), outcome.output)
    }

    /// The example Alertmanager configuration (routes, inhibitions) is valid.
    func testShippedAlertmanagerConfigPassesAmtool() throws {
        let amtool = try prometheusTool("amtool")
        let file = Self.repository.appendingPathComponent("contrib/alertmanager/alertmanager.yml")
        let outcome = try SpawnedCommand.run(amtool, ["check-config", file.path])
        XCTAssertEqual(outcome.status, 0, outcome.output)
        XCTAssertTrue(outcome.output.contains("4 inhibit rules"), outcome.output)
        // A next-chain risk (DESIGN §10, §16) opens a ticket; it pages no one.
        for (labels, receiver, other) in [
            (["severity=ticket", "alertname=PinnedClientsBreakOnNextChain"], "tickets", "on-call"),
            (["severity=warning", "alertname=PinnedClientsBreakAtNextLeafRenewal"], "on-call", "tickets"),
        ] {
            let route = try SpawnedCommand.run(amtool, ["config", "routes", "test", "--config.file", file.path] + labels)
            XCTAssertEqual(route.status, 0, route.output)
            XCTAssertTrue(route.output.contains(receiver), route.output)
            XCTAssertFalse(route.output.contains(other), route.output)
        }
    }

    // MARK: Metrics

    func testSnapshotPrometheusFormatPassesPromtool() throws {
        try fleet.addOK("ok.test")
        try fleet.addLeafOnly("stale.test")
        try fleet.addRefused("down.test")
        try fleet.writeConfig()
        let outcome = try fleet.run(["snapshot", "--format", "prometheus"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let check = try promtool(["check", "metrics"], input: outcome.stdout)
        XCTAssertEqual(check.status, 0, check.output)
        XCTAssertEqual(check.output, "", "no lint findings")
        XCTAssertTrue(outcome.stdout.contains("pinwatch_host_reason_info{host=\"stale.test\",port=\""), outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains(",status=\"leaf_only\",severity=\"warning\","))
        XCTAssertTrue(outcome.stdout.contains("pinwatch_probe_error{host=\"down.test\""))
        XCTAssertTrue(outcome.stdout.contains("pinwatch_hosts_by_severity{severity=\"warning\"} 1\n"))
    }

    /// A real Prometheus scrapes `serve` and sees the leaf-only host.
    func testPrometheusScrapesServeAndSeesLeafOnly() throws {
        try fleet.addOK("ok.test")
        try fleet.addLeafOnly("stale.test")
        try fleet.writeConfig(settings: ["interval: 2s"], timeout: "1s")
        let (_, port) = try startServe()

        let metrics = try LoopbackHTTP.get(port: port, "/metrics")
        XCTAssertEqual(metrics.status, 200)
        let check = try promtool(["check", "metrics"], input: metrics.body)
        XCTAssertEqual(check.status, 0, check.output)

        let local = try LocalPrometheus(scraping: [port], directory: fleet.directory)
        let prometheusPort = local.port
        let server = try XCTUnwrap(local.process)
        let query = "pinwatch_host_reason_info%7Bstatus%3D%22leaf_only%22%2Chost%3D%22stale.test%22%7D"
        try waitUntil(timeout: 60, "Prometheus never saw stale.test leaf_only: \(server.stderr)") {
            guard let answer = try? LoopbackHTTP.get(port: prometheusPort, "/api/v1/query?query=\(query)", timeout: 2) else { return false }
            return answer.body.contains("\"value\":[") && answer.body.contains(",\"1\"]")
        }
    }

    /// README's metrics table: `/metrics` carries the standard `process_*`
    /// series of the running exporter, read at the scrape, and the cycle's
    /// error counts under a name apart from the per-host series.
    func testMetricsCarryProcessSeriesAndCycleProbeErrors() throws {
        try fleet.addOK("ok.test")
        try fleet.addRefused("down.test")
        try fleet.writeConfig(settings: ["interval: 2s"], timeout: "1s")
        let started = Date().timeIntervalSince1970
        let (_, port) = try startServe()

        let metrics = try LoopbackHTTP.get(port: port, "/metrics")
        XCTAssertEqual(metrics.status, 200)
        let check = try promtool(["check", "metrics"], input: metrics.body)
        XCTAssertEqual(check.status, 0, check.output)
        XCTAssertEqual(check.output, "", "no lint findings")
        XCTAssertTrue(metrics.body.contains("pinwatch_cycle_probe_errors{kind=\"refused\"} 1\n"), metrics.body)
        var values: [String: Double] = [:]
        for line in metrics.body.split(separator: "\n") where line.hasPrefix("process_") {
            let parts = line.split(separator: " ")
            values[String(parts[0])] = Double(parts[1])
        }
        let startTime = try XCTUnwrap(values["process_start_time_seconds"], metrics.body)
        XCTAssertGreaterThan(startTime, started - 2)
        XCTAssertLessThanOrEqual(startTime, Date().timeIntervalSince1970 + 1)
        let open = try XCTUnwrap(values["process_open_fds"], metrics.body)
        let maximum = try XCTUnwrap(values["process_max_fds"], metrics.body)
        XCTAssertGreaterThan(open, 3)
        XCTAssertLessThan(open, maximum)
        XCTAssertGreaterThan(try XCTUnwrap(values["process_resident_memory_bytes"]), 1_000_000)
        XCTAssertNotNil(values["process_cpu_seconds_total"], metrics.body)
    }

    func testProbeEndpointAndBadInput() throws {
        let ok = try fleet.addOK("ok.test")
        let unrelated = try CertificateAuthority.makeRoot(commonName: "Unrelated Root")
        try fleet.writeConfig(
            pinsets: ["issuing": [LocalFleet.pin(fleet.issuing.certificate)], "unrelated": [LocalFleet.pin(unrelated.certificate)]])
        let (process, port) = try startServe()

        let probed = try LoopbackHTTP.get(port: port, "/probe?target=ok.test:\(ok.port)&pinset=issuing")
        XCTAssertEqual(probed.status, 200, probed.body)
        XCTAssertTrue(probed.body.contains("pinwatch_probe_success 1"), probed.body)
        XCTAssertTrue(probed.body.contains("status=\"ok\"} 1"), probed.body)
        let check = try promtool(["check", "metrics"], input: probed.body)
        XCTAssertEqual(check.status, 0, check.output)
        // As docs/DECISIONS.md says, the named set replaces ok.test's own pins (which match),
        // and a host pinned clients refuse is no probe success.
        let missed = try LoopbackHTTP.get(port: port, "/probe?target=ok.test:\(ok.port)&pinset=unrelated")
        XCTAssertTrue(missed.body.contains("status=\"blocked\"} 1"), missed.body)
        XCTAssertTrue(missed.body.contains("pinwatch_probe_success 0"), missed.body)

        let bad = [
            "/probe", "/probe?target=", "/probe?target=a%20b", "/probe?target=x.test:99999", "/probe?target=%00evil",
            "/probe?target=ok.test&pinset=nosuch", "/probe?target=ok.test&target=other.test", "/probe?nonsense=1",
            "/probe?target=" + String(repeating: "a", count: 10_000),
        ]
        for path in bad {
            let answer = try LoopbackHTTP.get(port: port, path)
            XCTAssertEqual(answer.status, 400, "\(path.prefix(40)): \(answer.body)")
            XCTAssertFalse(answer.body.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, answer.body)
        }
        // A request line of a megabyte: refused at once, nothing buffered whole.
        let started = Date()
        let huge = try LoopbackHTTP.get(port: port, "/probe?target=" + String(repeating: "a", count: 1 << 20))
        XCTAssertEqual(huge.status, 400)
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
        XCTAssertEqual(try LoopbackHTTP.get(port: port, "/nowhere").status, 404)
        XCTAssertEqual(try LoopbackHTTP.get(port: port, "/-/healthy").status, 200)
        XCTAssertTrue(process.isRunning)
    }

    /// 1,000 connections open at once, each with a scrape on it: every one
    /// answered, the process alive and its memory bounded.
    func testThousandConcurrentScrapesAreAnsweredWithBoundedMemory() throws {
        for number in 1...20 { try fleet.addOK("ok\(number).test") }
        try fleet.writeConfig()
        let (process, port) = try startServe()
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        if limit.rlim_cur < 4_096 {
            limit.rlim_cur = min(limit.rlim_max, 4_096)
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        let connections = try (0..<1_000).map { _ in try LoopbackHTTP.Connection(port: port) }
        for connection in connections { try connection.send("/metrics") }
        let answered = connections.filter { (try? $0.receive(timeout: 30))?.status == 200 }.count
        connections.forEach { $0.close() }
        XCTAssertEqual(answered, 1_000)
        XCTAssertTrue(process.isRunning)
        let status = try String(contentsOfFile: "/proc/\(process.pid)/status", encoding: .utf8)
        let peak = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }.map(String.init) ?? ""
        let kilobytes = Int(peak.filter(\.isNumber)) ?? 0
        XCTAssertGreaterThan(kilobytes, 0)
        XCTAssertLessThan(kilobytes, 150 * 1024, "peak RSS \(peak)")
    }

    // MARK: Hooks, reload, stop

    /// A live CA rotation turns a host ok → leaf_only; the hook gets the
    /// event on stdin; a hook that hangs is killed at its timeout and the
    /// cycles go on.
    func testHooksRunOnTransitionsAndAHangingHookIsKilled() throws {
        let (server, leaf) = try fleet.serveLeaf("rotating.test")
        fleet.add(
            LocalFleet.Host(
                name: "rotating.test", port: server.port, ca: [LocalFleet.pin(fleet.issuing.certificate)],
                leaf: [LocalFleet.pin(leaf.certificate)]))
        let events = fleet.directory.appendingPathComponent("events")
        try FileManager.default.createDirectory(at: events, withIntermediateDirectories: true)
        let hook = try fleet.write("#!/bin/sh\ncat > \"$1/$(date +%s%N).json\"\n", to: "hook.sh")
        chmod(hook.path, 0o755)
        try fleet.writeConfig(
            settings: [
                "interval: 1s",
                "hooks:",
                "  - [\(hook.path), \(events.path)]",
                "  - {command: [/bin/sleep, \"30\"], timeout: 1s}",
            ],
            timeout: "1s")
        let (process, port) = try startServe()
        try fleet.world.rotateIntermediate(of: server, hostName: "rotating.test", newIssuerName: "Rotated Issuing")

        var event: [String: Any] = [:]
        try waitUntil(timeout: 20, "no hook event: \(process.stderr)") {
            let files = (try? FileManager.default.contentsOfDirectory(at: events, includingPropertiesForKeys: nil)) ?? []
            for file in files {
                guard let data = try? Data(contentsOf: file), !data.isEmpty,
                    let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
                else { continue }
                event = object
                return true
            }
            return false
        }
        XCTAssertEqual(event["event"] as? String, "severity_changed")
        XCTAssertEqual(event["host"] as? String, "rotating.test")
        XCTAssertEqual((event["old"] as? [String: Any])?["severity"] as? String, "ok")
        XCTAssertEqual((event["new"] as? [String: Any])?["status"] as? String, "leaf_only")
        XCTAssertEqual((event["new"] as? [String: Any])?["severity"] as? String, "warning")
        XCTAssertTrue((event["reason"] as? String)?.hasPrefix("only the leaf pin still matches") == true)
        XCTAssertEqual((event["pins"] as? [String])?.count, 3)

        try waitUntil(timeout: 10, "the hanging hook was not killed: \(process.stderr)") {
            process.stderr.contains("hook failed") && process.stderr.contains("killed after its 1s timeout")
        }
        let cycles = { () -> Int in
            let body = (try? LoopbackHTTP.get(port: port, "/metrics").body) ?? ""
            let line = body.split(separator: "\n").first { $0.hasPrefix("pinwatch_cycles_total ") } ?? ""
            return Int(line.split(separator: " ").last ?? "") ?? 0
        }
        let before = cycles()
        try waitUntil(timeout: 10, "cycles stopped while a hook hung") { cycles() >= before + 2 }
    }

    func testReloadTakesAValidConfigAndRefusesAnInvalidOne() throws {
        try fleet.addOK("first.test")
        try fleet.writeConfig(settings: ["interval: 1s"], timeout: "1s")
        let (process, port) = try startServe()
        try fleet.addOK("second.test")
        try fleet.writeConfig(settings: ["interval: 1s"], timeout: "1s")
        process.signal(SIGHUP)
        try waitUntil(timeout: 10, "second.test never appeared: \(process.stderr)") {
            (try? LoopbackHTTP.get(port: port, "/metrics").body.contains("host=\"second.test\"")) == true
        }
        try fleet.write("interval: 1s\nhosts: [\n", to: "pinwatch.yaml")
        process.signal(SIGHUP)
        try waitUntil(timeout: 10, "no refusal logged: \(process.stderr)") {
            process.stderr.contains("reload refused")
        }
        let body = try LoopbackHTTP.get(port: port, "/metrics").body
        XCTAssertTrue(body.contains("host=\"second.test\""), "the old configuration keeps running")
        XCTAssertTrue(process.isRunning)
    }

    func testTermStopsWithinASecondAndLogsAreLogfmt() throws {
        try fleet.addOK("ok.test")
        try fleet.writeConfig()
        let (process, _) = try startServe()
        let started = Date()
        process.signal(SIGTERM)
        XCTAssertNotNil(process.waitForExit(timeout: 1.5))
        XCTAssertLessThan(Date().timeIntervalSince(started), 1.5)
        let lines = process.stderr.split(separator: "\n")
        XCTAssertTrue(lines.contains { $0.contains("level=info msg=listening") }, process.stderr)
        XCTAssertTrue(lines.contains { $0.contains("msg=\"cycle finished\"") }, process.stderr)
        XCTAssertTrue(lines.allSatisfy { $0.hasPrefix("time=") }, process.stderr)
    }

    func testShardsSplitTheHostsWithoutOverlap() throws {
        for number in 1...12 { try fleet.addOK("host\(number).test") }
        try fleet.writeConfig()
        var seen: [String] = []
        for index in 0..<3 {
            let outcome = try fleet.run(["snapshot", "--format", "json", "--shard", "\(index)/3"])
            XCTAssertEqual(outcome.status, 0, outcome.stderr)
            seen += try SnapshotJSON.decode(outcome.stdout).hosts.map(\.host)
        }
        XCTAssertEqual(seen.sorted(), (1...12).map { "host\($0).test" }.sorted(), "every host in exactly one shard")
        let bad = try fleet.run(["snapshot", "--shard", "3/3"])
        XCTAssertEqual(bad.status, 2, bad.stderr)
    }

    func testValidateChecksWithoutProbing() throws {
        let hole = try fleet.addBlackHole("hole.test")
        try fleet.writeConfig()
        let valid = try fleet.run(["validate"])
        XCTAssertEqual(valid.status, 0, valid.stderr)
        XCTAssertTrue(valid.stdout.contains("valid, 1 host"), valid.stdout)
        try fleet.write("hosts:\n  - host: a.test\n    pins: {ca: [sha256/AAAA]}\n", to: "bad.yaml")
        let invalid = try fleet.run(["validate", "--config", "bad.yaml"])
        XCTAssertEqual(invalid.status, 2)
        XCTAssertTrue(invalid.stderr.contains("bad.yaml:3"), invalid.stderr)
        XCTAssertEqual(hole.acceptedConnections, 0, "validate probes nothing")
    }
}
