import Foundation
import Logging
import PinwatchMonitor
import PinwatchService
import PinwatchTestSupport
import XCTest

@testable import pinwatch_serve

/// `/metrics` for a scraper that asks for gzip: one compression per render
/// however many scrapers ask, and the same text once decoded.
final class ServeCompressionTests: LocalFleetTestCase {
    private var processes: [BackgroundProcess] = []

    override func tearDown() {
        processes.forEach { $0.stop() }
        processes.removeAll()
        super.tearDown()
    }

    func testConcurrentGzipScrapesOfOneRenderCompressItOnce() throws {
        let buffer = MetricsBuffer()
        let text = Data((0..<20_000).map { "pinwatch_host_status{host=\"h\($0).example\",port=\"443\",status=\"ok\"} 1\n" }.joined().utf8)
        let tails = [[UInt8]](repeating: [], count: 50)
        var heads = tails
        let lock = NSLock()
        DispatchQueue.concurrentPerform(iterations: 50) { index in
            let (head, cycle) = buffer.gzipHead(for: (text, 1))
            let body = Array(cycle.readableBytesView) + head.tail(Array("scrape \(index)\n".utf8))
            lock.lock()
            heads[index] = body
            lock.unlock()
        }
        XCTAssertEqual(buffer.compressions, 1, "50 scrapers of one render")
        for (index, body) in heads.enumerated() where index % 10 == 0 {
            XCTAssertEqual(try gunzip(body), Array(text) + Array("scrape \(index)\n".utf8))
        }
        _ = buffer.gzipHead(for: (text + Data("next\n".utf8), 2))
        _ = buffer.gzipHead(for: (text + Data("next\n".utf8), 2))
        XCTAssertEqual(buffer.compressions, 2, "a new render, one more compression")
    }

    /// Each render is copied and compressed as it is published, before
    /// any scrape: concurrent scrapes of it, plain and gzip, only write
    /// what was made (in-process, so the count of compressions shows); the
    /// event loop that writes them runs at a lower priority than the rest.
    func testARenderIsCompressedWhenPublishedAndScrapesCompressNothing() throws {
        let curl = "/usr/bin/curl"
        try TestEnvironment.require(
            FileManager.default.isExecutableFile(atPath: curl), "curl is not installed: apt-get install curl", skip: { XCTSkip($0) })
        for index in 0..<3 { try fleet.addOK("h\(index).test") }
        try fleet.writeConfig(settings: ["interval: 1h"])
        let config = try ConfigFile.load(explicit: fleet.configURL.path)
        let exporter = Exporter(config: config, environment: [:], version: "test", logger: Logger(label: "test"))
        let server = ExporterHTTPServer(exporter: exporter)
        let port = try LocalPorts.closedPort()
        try server.start(listen: "127.0.0.1:\(port)", maximumConnections: 64, logger: Logger(label: "test"))
        exporter.startPolling()
        try waitUntil(timeout: 20, "the first cycle published") { exporter.isReady }
        XCTAssertEqual(server.metrics.compressions, 1, "compressed as published, before any scrape")
        let url = "http://127.0.0.1:\(port)/metrics"
        let outcomes = [SpawnedCommand.Outcome?](repeating: nil, count: 20)
        var collected = outcomes
        let lock = NSLock()
        DispatchQueue.concurrentPerform(iterations: 20) { index in
            let options = index % 2 == 0 ? ["--compressed"] : []
            let outcome = try? SpawnedCommand.run(curl, ["-sS", "--fail"] + options + [url])
            lock.lock()
            collected[index] = outcome
            lock.unlock()
        }
        for outcome in collected {
            XCTAssertEqual(outcome?.status, 0, outcome?.stderr ?? "curl did not run")
            XCTAssertTrue(outcome?.stdout.contains("pinwatch_host_reason_info{host=\"h2.test\"") == true, outcome?.stdout ?? "")
        }
        XCTAssertEqual(server.metrics.compressions, 1, "20 scrapes of one render compress nothing more")
        // Writing the text for scrapers yields to the probes on a busy machine.
        let nice = try server.group.next().submit { getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) }.wait()
        XCTAssertEqual(nice, ExporterHTTPServer.niceness)
        XCTAssertGreaterThan(nice, getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0), "below the test's own threads")
    }

    func testCurlCompressedGetsTheSameTextAsAPlainScrape() throws {
        let curl = "/usr/bin/curl"
        try TestEnvironment.require(
            FileManager.default.isExecutableFile(atPath: curl), "curl is not installed: apt-get install curl", skip: { XCTSkip($0) })
        try fleet.writeConfig(settings: ["interval: 1h"])
        let port = try LocalPorts.closedPort()
        let process = try BackgroundProcess(
            PinwatchBinary.url.path,
            [
                "serve", "--config", fleet.directory.appendingPathComponent("pinwatch.yaml").path, "--listen", "127.0.0.1:\(port)",
                "--state", "off",
            ],
            directory: fleet.directory, name: "serve-\(port)")
        processes.append(process)
        try waitUntil(timeout: 20, "serve ready: \(process.stderr)") {
            (try? LoopbackHTTP.get(port: port, "/-/ready", timeout: 2))?.status == 200
        }
        let url = "http://127.0.0.1:\(port)/metrics"
        func scrape(_ name: String, _ options: [String]) throws -> (headers: String, body: [UInt8]) {
            let headers = fleet.directory.appendingPathComponent("\(name).headers")
            let body = fleet.directory.appendingPathComponent("\(name).body")
            let outcome = try SpawnedCommand.run(curl, ["-sS", "--fail", "-D", headers.path, "-o", body.path] + options + [url])
            XCTAssertEqual(outcome.status, 0, outcome.stderr)
            return (try String(contentsOf: headers, encoding: .utf8).lowercased(), try [UInt8](Data(contentsOf: body)))
        }
        let plain = try scrape("plain", [])
        let decoded = try scrape("decoded", ["--compressed"])
        let raw = try scrape("raw", ["-H", "Accept-Encoding: gzip"])
        XCTAssertFalse(plain.headers.contains("content-encoding"), plain.headers)
        XCTAssertTrue(decoded.headers.contains("content-encoding: gzip"), decoded.headers)
        XCTAssertLessThan(raw.body.count * 2, plain.body.count, "gzip shrinks the text")
        // gzip checks the trailer's CRC and length, which curl may not.
        let rawText = try gunzip(raw.body)
        // The process_* lines are read at each scrape; the rest is the render.
        func render(_ bytes: [UInt8]) -> [Substring] {
            String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).filter {
                !$0.hasPrefix("process_") && !$0.hasPrefix("# HELP process_") && !$0.hasPrefix("# TYPE process_")
            }
        }
        XCTAssertTrue(String(decoding: decoded.body, as: UTF8.self).contains("\nprocess_open_fds "), "the scrape's own tail")
        XCTAssertEqual(render(decoded.body), render(plain.body))
        XCTAssertEqual(render(rawText), render(plain.body))
        XCTAssertTrue(render(plain.body).contains("pinwatch_cycles_total 1"))
    }

    /// Through gzip(1), which refuses a stream whose CRC or length is wrong.
    private func gunzip(_ bytes: [UInt8]) throws -> [UInt8] {
        let input = try fleet.write(bytes, to: "body-\(UUID().uuidString).gz")
        let outcome = try SpawnedCommand.run("/bin/sh", ["-c", "gzip -dc < \(TmuxSession.quote(input.path)) | od -An -v -tx1"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        return outcome.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { UInt8($0, radix: 16) }
    }
}
