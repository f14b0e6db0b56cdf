import Foundation
import PinwatchTestSupport
import XCTest

/// `pinwatch-serve` under a flood of connections, with a descriptor limit
/// low enough to run out of.
final class ServeUnderLoadTests: LocalFleetTestCase {
    private var processes: [BackgroundProcess] = []

    override func setUpWithError() throws {
        try super.setUpWithError()
        // The flood's connections are this process's descriptors too.
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        if limit.rlim_cur < 4_096 {
            limit.rlim_cur = min(limit.rlim_max, 4_096)
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
    }

    override func tearDown() {
        processes.forEach { $0.stop() }
        processes.removeAll()
        super.tearDown()
    }

    private static var serveBinary: String {
        PinwatchBinary.url.deletingLastPathComponent().appendingPathComponent("pinwatch-serve").path
    }

    /// `pinwatch-serve` started by a shell that lowers the open-file limit
    /// (soft and hard) and then becomes it, so the PID is the exporter's.
    private func startServe(openFiles: Int = 1_024, _ extra: [String] = []) throws -> (process: BackgroundProcess, port: Int) {
        let port = try LocalPorts.closedPort()
        let words =
            [Self.serveBinary, "--config", fleet.configURL.path, "--listen", "127.0.0.1:\(port)", "--state", "off"] + extra
        let process = try BackgroundProcess(
            "/bin/sh", ["-c", "ulimit -n \(openFiles) && exec " + words.map(TmuxSession.quote).joined(separator: " ")],
            directory: fleet.directory, name: "serve-\(port)")
        processes.append(process)
        try waitUntil(timeout: 20, "serve ready: \(process.stderr)") {
            (try? LoopbackHTTP.get(port: port, "/-/ready", timeout: 2))?.status == 200
        }
        return (process, port)
    }

    private func openDescriptors(_ process: BackgroundProcess) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process.pid)/fd").count) ?? -1
    }

    private func cycleLines(_ log: Substring) -> Int {
        log.split(separator: "\n").filter { $0.contains("msg=\"cycle finished\"") }.count
    }

    /// Connections that are opened and never used, as a flood sends them;
    /// it stops early if the kernel's backlog stops taking more, but never
    /// short of twice the 128 descriptors the exporter gets.
    private func flood(port: Int, count: Int, source: String? = nil) throws -> [LoopbackHTTP.Connection] {
        var opened: [LoopbackHTTP.Connection] = []
        for _ in 0..<count {
            guard let connection = try? LoopbackHTTP.Connection(port: port, timeout: 2, source: source) else { break }
            opened.append(connection)
        }
        XCTAssertGreaterThanOrEqual(opened.count, 256, "the flood")
        return opened
    }

    /// Resident memory in KiB, from /proc.
    private func residentKiB(_ process: BackgroundProcess) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(process.pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.filter(\.isNumber)) ?? -1
    }

    private func metric(_ name: String, in body: String) -> Double? {
        body.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") }
    }

    /// 400 idle connections against a limit of 128 descriptors: `serve`
    /// accepts only as many as it can spare, the probes keep their sockets,
    /// no host changes severity, and the descriptors come back afterwards.
    func testConnectionFloodLeavesProbesTheirDescriptors() throws {
        try fleet.addOK("first.test")
        try fleet.addOK("second.test")
        try fleet.writeConfig(settings: ["interval: 1s"], timeout: "1s")
        let (process, port) = try startServe(openFiles: 128)
        let baseline = openDescriptors(process)
        XCTAssertGreaterThan(baseline, 0)
        let logBefore = process.stderr.count

        let connections = try flood(port: port, count: 400)
        defer { connections.forEach { $0.close() } }
        var peak = 0
        try waitUntil(timeout: 20, "two cycles during the flood: \(process.stderr.suffix(2_000))") {
            peak = max(peak, openDescriptors(process))
            return cycleLines(process.stderr.dropFirst(logBefore)) >= 2
        }
        // 24 connections at most (a quarter of 128, less what 16 probes need).
        XCTAssertLessThanOrEqual(peak, baseline + 24 + 2 + 2, "descriptors during the flood")
        let during = process.stderr.dropFirst(logBefore)
        XCTAssertFalse(during.contains("severity changed"), String(during))
        XCTAssertFalse(during.contains("Too many open files"), String(during))
        XCTAssertFalse(during.contains("cycle failed"), String(during))

        connections.forEach { $0.close() }
        try waitUntil(timeout: 20, "descriptors back to \(baseline): \(openDescriptors(process))") {
            openDescriptors(process) <= baseline + 2
        }
        let metrics = try LoopbackHTTP.get(port: port, "/metrics")
        XCTAssertEqual(metrics.status, 200)
        XCTAssertTrue(metrics.body.contains("pinwatch_hosts_by_severity{severity=\"ok\"} 2\n"), metrics.body)
        XCTAssertEqual(metric("pinwatch_cycle_failures_total{reason=\"descriptors\"}", in: metrics.body), 0)
        XCTAssertTrue(process.isRunning)
    }

    /// With the cap lifted past the limit, the flood takes every
    /// descriptor: the probes that cannot open a socket make the cycle
    /// fail (logged and counted), not the hosts, whose verdicts stand.
    func testRunningOutOfDescriptorsFailsTheCycleNotTheHosts() throws {
        try fleet.addOK("first.test")
        try fleet.addOK("second.test")
        try fleet.writeConfig(settings: ["interval: 1s"], timeout: "1s")
        let (process, port) = try startServe(openFiles: 128, ["--max-connections", "1000"])
        let baseline = openDescriptors(process)
        let logBefore = process.stderr.count

        let connections = try flood(port: port, count: 400)
        defer { connections.forEach { $0.close() } }
        try waitUntil(timeout: 20, "a failed cycle: \(process.stderr.suffix(2_000))") {
            process.stderr.dropFirst(logBefore).contains("cycle failed")
        }
        connections.forEach { $0.close() }
        try waitUntil(timeout: 20, "descriptors back to \(baseline): \(openDescriptors(process))") {
            openDescriptors(process) <= baseline + 2
        }
        let logAfter = process.stderr.count
        try waitUntil(timeout: 20, "a cycle after the flood: \(process.stderr.suffix(2_000))") {
            cycleLines(process.stderr.dropFirst(logAfter)) >= 1
        }
        let metrics = try LoopbackHTTP.get(port: port, "/metrics")
        XCTAssertEqual(metrics.status, 200)
        let log = process.stderr.dropFirst(logBefore)
        XCTAssertTrue(log.contains("level=error msg=\"cycle failed"), String(log))
        XCTAssertTrue(log.contains("reason=descriptors"), String(log))
        XCTAssertFalse(log.contains("severity changed"), String(log))
        XCTAssertGreaterThanOrEqual(metric("pinwatch_cycle_failures_total{reason=\"descriptors\"}", in: metrics.body) ?? 0, 1)
        XCTAssertEqual(metric("pinwatch_cycle_failures_total{reason=\"memory\"}", in: metrics.body), 0)
        XCTAssertTrue(metrics.body.contains("pinwatch_hosts_by_severity{severity=\"ok\"} 2\n"), metrics.body)
        XCTAssertFalse(metrics.body.contains("pinwatch_probe_error{"), metrics.body)
    }

    /// 32 connections pipeline `GET /metrics` and never read the answers:
    /// `serve` stops reading them while their answers wait, so its memory
    /// stays bounded, comes back when they close, and others still scrape.
    func testPipelinedRequestsThatAreNeverReadKeepMemoryBounded() throws {
        for number in 1...20 { try fleet.addOK("host\(number).test") }
        try fleet.writeConfig(settings: ["interval: 30s"], timeout: "2s")
        let (process, port) = try startServe()
        let baseline = residentKiB(process)
        XCTAssertGreaterThan(baseline, 0)

        let request = Array(String(repeating: "GET /metrics HTTP/1.1\r\nHost: pinwatch\r\n\r\n", count: 1_000).utf8)
        let quota = 8 << 20
        let connections = try (0..<32).map { _ in try LoopbackHTTP.Connection(port: port) }
        defer { connections.forEach { $0.close() } }
        for connection in connections { _ = fcntl(connection.descriptor, F_SETFL, O_NONBLOCK) }
        var sent = [Int](repeating: 0, count: connections.count)
        var peak = baseline
        // Sends until every connection has sent its quota or the server
        // stopped taking more (the kernel's buffers are full), for 8 s at most.
        let deadline = Date().addingTimeInterval(8)
        var stalledRounds = 0
        while Date() < deadline, stalledRounds < 20, sent.contains(where: { $0 < quota }) {
            var progressed = false
            for (index, connection) in connections.enumerated() where sent[index] < quota {
                let offset = sent[index] % request.count
                let count = request[offset...].withUnsafeBytes {
                    Glibc.send(connection.descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                if count > 0 {
                    sent[index] += count
                    progressed = true
                }
            }
            peak = max(peak, residentKiB(process))
            stalledRounds = progressed ? 0 : stalledRounds + 1
            if !progressed { usleep(50_000) }
        }
        // Memory keeps growing while the server works through what it read.
        for _ in 0..<30 {
            peak = max(peak, residentKiB(process))
            usleep(100_000)
        }
        XCTAssertLessThan(
            peak, baseline + 32 * 1024, "RSS \(baseline) KiB → peak \(peak) KiB after \(sent.reduce(0, +) >> 20) MiB of requests")
        XCTAssertEqual(try LoopbackHTTP.get(port: port, "/metrics").status, 200, "another scraper is still answered")

        connections.forEach { $0.close() }
        try waitUntil(timeout: 20, "RSS back near \(baseline) KiB: \(residentKiB(process)) KiB") {
            residentKiB(process) < baseline + 16 * 1024
        }
        XCTAssertTrue(process.isRunning)
    }

    /// 400 silent connections from one address under a cap of 64: that
    /// address keeps half the cap, the scraper on another address is
    /// answered at once, and the silent ones are closed after the first
    /// request's 5 s, not the keep-alive idle time (30 s).
    func testSilentConnectionsFromOneAddressLeaveTheScraperRoom() throws {
        try fleet.addOK("first.test")
        try fleet.writeConfig(settings: ["interval: 1s"], timeout: "1s")
        let (process, port) = try startServe(openFiles: 256)
        XCTAssertTrue(process.stderr.contains("max_connections=64"), process.stderr)
        let logBefore = process.stderr.count

        let opened = Date()
        let connections = try flood(port: port, count: 400, source: "127.0.0.2")
        defer { connections.forEach { $0.close() } }
        for path in ["/metrics", "/-/ready", "/metrics", "/-/ready"] {
            let started = Date()
            let answer = try LoopbackHTTP.get(port: port, path, timeout: 3)
            XCTAssertEqual(answer.status, 200, "\(path) during the flood")
            XCTAssertLessThan(Date().timeIntervalSince(started), 2, "\(path) answered at once")
        }
        try waitUntil(timeout: 15, "every silent connection closed by serve") {
            connections.allSatisfy { $0.closedByPeer(within: 0.05) }
        }
        let closedAfter = Date().timeIntervalSince(opened)
        XCTAssertLessThan(closedAfter, 12, "closed after the first request's deadline, not the idle time")

        let log = process.stderr.dropFirst(logBefore)
        let refusals = log.split(separator: "\n").filter { $0.contains("connections refused: one address holds its share") }
        XCTAssertEqual(refusals.count, 1, "one line a minute at most: \(log.suffix(2_000))")
        for field in ["level=warning", "address=127.0.0.2", "share=32", "max_connections=64"] {
            XCTAssertTrue(refusals.first?.contains(field) ?? false, "\(field): \(refusals)")
        }
        XCTAssertTrue(process.isRunning)
    }

    /// A full cap is logged (once a minute at most); a kept-alive
    /// connection outlives the first request's deadline, and silent ones
    /// make room for a scraper within it.
    func testAFullCapIsLoggedAndKeptAliveConnectionsOutliveTheFirstRequestDeadline() throws {
        try fleet.addOK("first.test")
        try fleet.writeConfig(settings: ["interval: 1s"], timeout: "1s")
        let (process, port) = try startServe(openFiles: 256, ["--max-connections", "4"])
        let logBefore = process.stderr.count

        let kept = try LoopbackHTTP.Connection(port: port, timeout: 10, source: "127.0.0.3")
        defer { kept.close() }
        try kept.send("/-/ready", keepAlive: true)
        XCTAssertEqual(try kept.receive(timeout: 5).status, 200)
        let silent = try (4...7).map { try LoopbackHTTP.Connection(port: port, timeout: 10, source: "127.0.0.\($0)") }
        defer { silent.forEach { $0.close() } }
        try waitUntil(timeout: 5, "the cap logged: \(process.stderr.suffix(1_000))") {
            process.stderr.dropFirst(logBefore).contains("connection limit reached")
        }

        let started = Date()
        let answer = try LoopbackHTTP.get(port: port, "/metrics", timeout: 10)
        XCTAssertEqual(answer.status, 200)
        XCTAssertLessThan(Date().timeIntervalSince(started), 8, "the silent connections made room within 5 s")
        XCTAssertFalse(kept.closedByPeer(within: 2), "a kept-alive connection has the idle time, not the first request's")
        try kept.send("/-/ready", keepAlive: true)
        XCTAssertEqual(try kept.receive(timeout: 5).status, 200)

        let lines = process.stderr.dropFirst(logBefore).split(separator: "\n").filter { $0.contains("connection limit reached") }
        XCTAssertEqual(lines.count, 1, "\(lines)")
        XCTAssertTrue(lines.first?.contains("level=warning") ?? false, "\(lines)")
        XCTAssertTrue(lines.first?.contains("max_connections=4") ?? false, "\(lines)")
    }
}
