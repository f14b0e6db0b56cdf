import Foundation
import PinwatchCore
import PinwatchLocalWorld
import PinwatchTestSupport
import XCTest

@testable import PinwatchFleet

/// `snapshot --prometheus` reads the fleet in chunks of hosts from a
/// server on 127.0.0.1 that answers as Prometheus does: the same rows as
/// one query for every series, however the chunks fall, with no answer
/// past its bound.
final class FleetSnapshotQueryTests: XCTestCase {
    private var servers: [ChunkingPrometheus] = []

    override func tearDown() {
        servers.forEach { $0.stop() }
        servers.removeAll()
        super.tearDown()
    }

    private func serve(_ series: [ChunkingPrometheus.Series]) throws -> ChunkingPrometheus {
        let server = try ChunkingPrometheus(series)
        servers.append(server)
        return server
    }

    private let spki = Data(repeating: 7, count: 32).base64EncodedString()

    /// A host's series as one vantage's `serve` exports them.
    private func host(_ name: String, vantage: String? = nil, headline: String = "ok", instance: String = "serve:1")
        -> [ChunkingPrometheus.Series]
    {
        var labels = ["host": name, "port": "443", "instance": instance, "job": "pinwatch"]
        if let vantage { labels["vantage"] = vantage }
        func with(_ more: [String: String]) -> [String: String] { labels.merging(more) { $1 } }
        var series = [
            ChunkingPrometheus.Series(
                with([
                    "__name__": "pinwatch_host_reason_info", "status": headline == "ok" ? "ok" : "blocked",
                    "severity": headline == "ok" ? "ok" : "critical", "headline": headline, "tiers": "ca",
                    "reason": "a CA-tier pin matches: survives leaf renewals",
                ]))
        ]
        for (level, role) in ["leaf", "intermediate", "root"].enumerated() {
            series.append(
                .init(
                    with([
                        "__name__": "pinwatch_chain_level_info", "level": "\(level)", "role": role, "subject": "CN=\(level).\(name)",
                        "spki_sha256": spki,
                    ])))
            series.append(
                .init(with(["__name__": "pinwatch_chain_level_not_after_timestamp_seconds", "level": "\(level)"]), "1830000000"))
        }
        series.append(.init(with(["__name__": "pinwatch_pin_match", "level": "1", "tier": "ca"])))
        series.append(.init(with(["__name__": "pinwatch_probe_duration_seconds"]), "0.25"))
        return series
    }

    private func cycle(_ instance: String = "serve:1") -> [ChunkingPrometheus.Series] {
        [
            .init(["__name__": "pinwatch_last_cycle_timestamp_seconds", "instance": instance, "job": "pinwatch"], "1799999990"),
            .init(["__name__": "pinwatch_poll_interval_seconds", "instance": instance, "job": "pinwatch"], "300"),
        ]
    }

    /// A host whose probe failed, as `serve` exports it: no chain, its
    /// failure's kind, the probe's time, an address's status.
    private func failed(_ name: String, seconds: String) -> [ChunkingPrometheus.Series] {
        let labels = ["host": name, "port": "443", "instance": "serve:1", "job": "pinwatch"]
        func with(_ more: [String: String]) -> [String: String] { labels.merging(more) { $1 } }
        return [
            .init(
                with([
                    "__name__": "pinwatch_host_reason_info", "status": "error", "severity": "unknown", "headline": "error",
                    "tiers": "", "reason": "timed out",
                ])),
            .init(with(["__name__": "pinwatch_probe_error", "kind": "timeout"])),
            .init(with(["__name__": "pinwatch_probe_duration_seconds"]), seconds),
            .init(with(["__name__": "pinwatch_address_status", "address": "192.0.2.1", "status": "error"])),
        ]
    }

    /// Names that share prefixes, differ in case, carry regular
    /// expressions' metacharacters or are a prefix of another; two
    /// vantages that disagree; a `/probe` row; samples to skip.
    private func awkwardFleet() -> [ChunkingPrometheus.Series] {
        var series = cycle() + cycle("serve:2")
        let names = [
            "a.test", "a.test.example", "ab.test", "API.test", "b-1.test", "b-2.test", "b.test", "c+d.test", "e(f).test", "e[g].test",
            "h|i.test", "x.test", "x.testing", "x\\y.test", "\"quoted\".test", "ü.test",
        ]
        for name in names { series += host(name) }
        series += host("a.test", vantage: "eu", instance: "serve:2")
        series += host("a.test", vantage: "us", headline: "blocked", instance: "serve:2")
        // A `/probe` scrape: an instance that reports no cycle.
        series += host("probed.test", instance: "probe:9")
        // Not a host's sample: no host, a bad port.
        series.append(.init(["__name__": "pinwatch_host_reason_info", "port": "443", "status": "ok", "severity": "ok", "headline": "ok"]))
        // Scraped from an exporter, as every series Prometheus holds is:
        // asked for with that exporter's.
        series.append(
            .init([
                "__name__": "pinwatch_pin_match", "host": "a.test", "port": "99999", "level": "0", "tier": "leaf", "job": "pinwatch",
                "instance": "serve:1",
            ]))
        return series
    }

    /// The old single query's rows, for comparison.
    private func oneQuery(_ server: ChunkingPrometheus, selector: String? = nil) throws -> FleetSnapshot {
        let query = FleetQuery(server: server.url, selector: selector, timeout: 10)
        defer { query.close() }
        let done = expectation(description: "answered")
        let box = SnapshotBox()
        query.fetch { outcome in
            box.set(outcome)
            done.fulfill()
        }
        wait(for: [done], timeout: 20)
        return try XCTUnwrap(box.value).get()
    }

    private func chunked(
        _ server: ChunkingPrometheus, selector: String? = nil, maximumAnswer: Int = FleetSnapshotQuery.maximumAnswer,
        seriesPerChunk: Int
    ) -> Result<FleetSnapshot, FleetQueryProblem> {
        FleetSnapshotQuery(
            server: server.url, selector: selector, timeout: 10, maximumAnswer: maximumAnswer, seriesPerChunk: seriesPerChunk
        ).read()
    }

    /// The same rows but for what only the dashboard's detail shows: a
    /// chunked read leaves out each row's probes, and a probe's time but
    /// where the probe failed.
    private func assertSameFleet(_ chunked: FleetSnapshot, _ whole: FleetSnapshot, file: StaticString = #filePath, line: UInt = #line) {
        let written = whole.hosts.map { row in
            var row = row
            row.probes = []
            if row.failure == nil { row.elapsed = nil }
            return row
        }
        XCTAssertEqual(chunked.hosts.map(\.hostKey), whole.hosts.map(\.hostKey), file: file, line: line)
        XCTAssertEqual(chunked.hosts, written, file: file, line: line)
        XCTAssertEqual(chunked.disagreeing, whole.disagreeing, file: file, line: line)
        XCTAssertEqual(chunked.instances, whole.instances, file: file, line: line)
        XCTAssertEqual(chunked.skipped, whole.skipped, file: file, line: line)
        XCTAssertEqual(chunked.probeRows, whole.probeRows, file: file, line: line)
    }

    func testChunksOfAFewSeriesGiveTheRowsOfOneQuery() throws {
        let server = try serve(awkwardFleet())
        let whole = try oneQuery(server)
        XCTAssertEqual(whole.hosts.count, 18, "the fleet's rows, without the /probe one")
        XCTAssertEqual(whole.probeRows, 1)
        XCTAssertEqual(whole.disagreeing.count, 1)
        XCTAssertEqual(whole.skipped, 2)
        for size in [1, 9, 10, 25, 1_000] {
            let chunked = try chunked(server, seriesPerChunk: size).get()
            assertSameFleet(chunked, whole)
        }
        let before = server.queries.count
        _ = try chunked(server, seriesPerChunk: 9).get()
        let asked = server.queries[before...]
        XCTAssertGreaterThan(asked.count, 10, "split into chunks: \(asked)")
    }

    /// A chunk asks for what the snapshot writes: no address's status, a
    /// probe's time only for the rows whose probe failed (their reports'
    /// `elapsed_ms`).
    func testChunksAskForWhatTheSnapshotWrites() throws {
        var series = cycle() + host("ok.test") + failed("down.test", seconds: "3.5") + failed("e(f).test", seconds: "2")
        series.append(
            .init(
                [
                    "__name__": "pinwatch_chain_not_after_timestamp_seconds", "host": "ok.test", "port": "443", "instance": "serve:1",
                    "job": "pinwatch", "level": "2", "role": "root",
                ], "1700000000"))
        let server = try serve(series)
        let whole = try oneQuery(server)
        XCTAssertEqual(whole.hosts.map(\.elapsed), [3.5, 2, 0.25], "one query reads every probe's time")
        XCTAssertEqual(whole.hosts.map { $0.probes.count }, [1, 1, 0])
        let before = server.queries.count
        let chunked = try chunked(server, seriesPerChunk: 5).get()
        assertSameFleet(chunked, whole)
        XCTAssertEqual(chunked.hosts.map(\.elapsed), [3.5, 2, nil], "down.test, e(f).test, ok.test")
        let ok = try XCTUnwrap(chunked.hosts.last)
        XCTAssertEqual(ok.levels.map(\.notAfter), whole.hosts.last?.levels.map(\.notAfter))
        XCTAssertEqual(ok.levels.last?.notAfter, Date(timeIntervalSince1970: 1_700_000_000), "the root's expiry, the earliest")
        let asked = Array(server.queries[before...])
        let chunks = asked.filter { $0.contains("pinwatch_host_reason_info|") }
        XCTAssertFalse(chunks.isEmpty)
        for chunk in chunks {
            XCTAssertFalse(chunk.contains("pinwatch_address_status"), chunk)
            XCTAssertFalse(chunk.contains("pinwatch_probe_duration_seconds"), chunk)
            XCTAssertTrue(chunk.contains("pinwatch_chain_not_after_timestamp_seconds"), chunk)
        }
        let durations = asked.filter { $0.contains("pinwatch_probe_duration_seconds") }
        XCTAssertEqual(durations, [#"{__name__="pinwatch_probe_duration_seconds",host=~"down\\.test|e\\(f\\)\\.test"}"#])
    }

    /// However many chunks a fleet takes, a read holds no more answers at
    /// once than it reads at once, and the one it waits with.
    func testAnswersHeldAtOnceAreBounded() throws {
        var series = cycle()
        for index in 0..<400 { series += host("host\(index).test") }
        let server = try serve(series)
        var held = 0
        let read = FleetSnapshotQuery(server: server.url, selector: nil, timeout: 10, seriesPerChunk: 40).read(mostAnswersHeld: &held)
        XCTAssertEqual(try read.get().hosts.count, 400)
        XCTAssertGreaterThan(server.queries.count, 40, "read in chunks")
        XCTAssertGreaterThanOrEqual(held, 1)
        XCTAssertLessThanOrEqual(held, FleetSnapshotQuery.answersReadAtOnce + 1)
    }

    /// Each chunk read says how many rows are in, of how many Prometheus
    /// counted, rising, one report at a time.
    func testProgressCountsTheRowsAsChunksAreRead() throws {
        var series = cycle()
        for index in 0..<400 { series += host("host\(index).test") }
        let server = try serve(series)
        let heard = ProgressLog()
        let read = FleetSnapshotQuery(server: server.url, selector: nil, timeout: 10, seriesPerChunk: 400).read { heard.append($0) }
        XCTAssertEqual(try read.get().hosts.count, 400)
        let reports = heard.reports
        XCTAssertGreaterThan(reports.count, 5, "a report a chunk")
        XCTAssertEqual(reports.last, FleetReadProgress(rows: 400, counted: 400))
        XCTAssertEqual(reports.map(\.rows), reports.map(\.rows).sorted())
        XCTAssertEqual(Set(reports.map(\.rows)).count, reports.count, "each report has more rows than the one before")
        XCTAssertTrue(reports.allSatisfy { $0.counted == 400 })
    }

    func testAMatchKeepsProbeRowsAsOneQueryDoes() throws {
        let server = try serve(awkwardFleet())
        let whole = try oneQuery(server, selector: "job=\"pinwatch\"")
        XCTAssertEqual(whole.probeRows, 0)
        assertSameFleet(try chunked(server, selector: "job=\"pinwatch\"", seriesPerChunk: 10).get(), whole)
        let unmatched = try oneQuery(server)
        XCTAssertEqual(unmatched.probeRows, 1, "left out without a --match")
        assertSameFleet(try chunked(server, seriesPerChunk: 10).get(), unmatched)
    }

    /// More than one answer may hold, though the counts said it fits:
    /// the chunk is asked for again, split, until each answer does.
    func testAFleetLargerThanOneAnswerIsReadInAnswersUnderTheBound() throws {
        var series = cycle()
        for index in 0..<300 { series += host("host\(index).test") }
        let server = try serve(series)
        let whole = try oneQuery(server)
        let bound = 16 << 10
        let oneAnswer = FleetSnapshotQuery(server: server.url, selector: nil, timeout: 10, maximumAnswer: bound).vector(
            FleetSnapshotQuery.selector(FleetSnapshot.families, host: nil, extra: ""))
        guard case .failure(let problem) = oneAnswer else { return XCTFail("the fleet fits one \(bound >> 10) KiB answer: no test") }
        XCTAssertEqual(problem, FleetQuery.tooLarge(bound))
        let chunked = try chunked(server, maximumAnswer: bound, seriesPerChunk: 1 << 30).get()
        XCTAssertEqual(chunked.hosts.count, 300)
        assertSameFleet(chunked, whole)
    }

    /// Chunks name their hosts exactly, no prefix and no regular expression
    /// past plain alternatives, POSTed once the query is long.
    func testChunksNameTheirHostsExactly() throws {
        var series = cycle()
        for index in 0..<300 { series += host("host\(index).test") }
        series += host("c+d.test") + host("e(f).test") + host("x\\y.test") + host("ü.test")
        let server = try serve(series)
        let whole = try oneQuery(server)
        let before = server.queries.count
        assertSameFleet(try chunked(server, seriesPerChunk: 1_000).get(), whole)
        let asked = Array(server.queries[before...])
        XCTAssertEqual(
            asked.filter { $0.hasPrefix("count by") },
            [
                #"count by (job, instance) ({__name__="pinwatch_host_reason_info"})"#,
                #"count by (host) ({__name__="pinwatch_host_reason_info",job="pinwatch",instance="serve:1"})"#,
            ], "one exporter, larger than a chunk: read by its hosts")
        XCTAssertFalse(asked.contains { $0.contains(".*") }, "a prefix was asked for: \(asked)")
        let chunks = asked.filter { $0.contains("host=~") }
        XCTAssertEqual(chunks.count, 4, "304 rows, 100 to a chunk of 1,000 series at 10 series a row")
        XCTAssertTrue(
            chunks.contains { FleetQuery.request(server: server.url, promQL: $0)?.form != nil }, "no chunk was long enough to be POSTed")
    }

    /// The JSON document says whether each row's pins survive each next
    /// chain; the table has no column for it and does not ask.
    func testOnlyTheDocumentAsksWhetherTheNextChainsSurvive() throws {
        var series = cycle()
        for index in 0..<30 {
            let name = "host\(index).test"
            series += host(name)
            let labels = [
                "host": name, "port": "443", "instance": "serve:1", "job": "pinwatch", "__name__": "pinwatch_next_chain_survives",
            ]
            series.append(.init(labels.merging(["scenario": "leaf_renewal"]) { $1 }, "1"))
            series.append(.init(labels.merging(["scenario": "intermediate_rotation"]) { $1 }, index == 7 ? "0" : "1"))
        }
        let server = try serve(series)
        let before = server.queries.count
        let document = try FleetSnapshotQuery(server: server.url, selector: nil, timeout: 10, contents: .document, seriesPerChunk: 100)
            .read().get()
        XCTAssertEqual(document.hosts.count, 30)
        XCTAssertTrue(document.hosts.allSatisfy { $0.survival[.leafRenewal] == true }, "every row's leaf renewal")
        XCTAssertEqual(document.hosts.filter { $0.survival[.intermediateRotation] == false }.map(\.host), ["host7.test"])
        XCTAssertTrue(document.hosts.allSatisfy { $0.survival[.rootTransition] == nil })
        let asked = server.queries[before...].filter { $0.contains("pinwatch_host_reason_info|") }
        XCTAssertGreaterThan(asked.count, 1, "chunked: \(asked)")
        XCTAssertTrue(asked.allSatisfy { $0.contains("pinwatch_next_chain_survives") }, "\(asked)")

        let tableFrom = server.queries.count
        let table = try chunked(server, seriesPerChunk: 100).get()
        XCTAssertEqual(table.hosts.count, 30)
        XCTAssertTrue(table.hosts.allSatisfy { $0.survival.isEmpty })
        XCTAssertFalse(server.queries[tableFrom...].contains { $0.contains("pinwatch_next_chain_survives") })
    }

    /// Exporters that fit a chunk are asked for whole, by `job` and
    /// `instance`, several of one job to a chunk; one larger than a chunk
    /// by its hosts.
    func testChunksAskForWholeExportersWhereTheyFit() throws {
        var series: [ChunkingPrometheus.Series] = []
        for shard in 1...4 {
            series += cycle("shard.\(shard):9")
            for index in 0..<10 { series += host("host\(index).shard\(shard).test", instance: "shard.\(shard):9") }
        }
        series += cycle("big:9")
        for index in 0..<40 { series += host("host\(index).big.test", instance: "big:9") }
        let server = try serve(series)
        let whole = try oneQuery(server)
        XCTAssertEqual(whole.hosts.count, 80)
        let before = server.queries.count
        assertSameFleet(try chunked(server, seriesPerChunk: 200).get(), whole)
        let chunks = server.queries[before...].filter { $0.hasPrefix("{") && $0.contains("pinwatch_host_reason_info|") }
        let families = FleetSnapshotQuery(server: server.url, selector: nil, timeout: 1).hostFamilies.map(\.rawValue).joined(separator: "|")
        XCTAssertEqual(
            chunks.filter { !$0.contains("host=~") },
            [
                #"{__name__=~"\#(families)",job="pinwatch",instance=~"shard\\.1:9|shard\\.2:9"}"#,
                #"{__name__=~"\#(families)",job="pinwatch",instance=~"shard\\.3:9|shard\\.4:9"}"#,
            ], "two exporters of 10 rows to a chunk of 200 series at 10 a row")
        let named = chunks.filter { $0.contains("host=~") }
        XCTAssertEqual(named.count, 2, "big:9's 40 rows, 20 to a chunk")
        XCTAssertTrue(named.allSatisfy { $0.contains(#"job="pinwatch",instance="big:9",host=~"#) && !$0.contains("shard") }, "\(named)")
    }

    func testAHostWhoseOwnSeriesPassTheBoundIsNamed() throws {
        var series = cycle() + host("small.test")
        let huge = host("huge.test").map { one in
            var one = one
            one.labels["subject"] = String(repeating: "S", count: 900)
            return one
        }
        series += huge
        let server = try serve(series)
        guard case .failure(let problem) = chunked(server, maximumAnswer: 4 << 10, seriesPerChunk: 1 << 30) else {
            return XCTFail("read a host past the bound")
        }
        XCTAssertTrue(problem.description.contains("huge.test"), problem.description)
    }

    func testARefusedCountIsSaid() throws {
        let peer = try FakePrometheus.answering(
            body: Array(#"{"status":"error","errorType":"bad_data","error":"parse error"}"#.utf8), status: "400 Bad Request")
        defer { peer.stop() }
        let outcome = FleetSnapshotQuery(
            server: try XCTUnwrap(URL(string: "http://127.0.0.1:\(peer.port)")), selector: nil, timeout: 5
        ).read()
        guard case .failure(let problem) = outcome else { return XCTFail("accepted a refusal") }
        XCTAssertTrue(problem.description.contains("refused the query (bad_data): parse error"), problem.description)
    }
}

private final class ProgressLog: @unchecked Sendable {
    private let lock = NSLock()
    private var heard: [FleetReadProgress] = []

    func append(_ progress: FleetReadProgress) {
        lock.lock()
        heard.append(progress)
        lock.unlock()
    }

    var reports: [FleetReadProgress] {
        lock.lock()
        defer { lock.unlock() }
        return heard
    }
}

private final class SnapshotBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Result<FleetSnapshot, FleetQueryProblem>?

    func set(_ value: Result<FleetSnapshot, FleetQueryProblem>) {
        lock.lock()
        stored = value
        lock.unlock()
    }

    var value: Result<FleetSnapshot, FleetQueryProblem>? {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}

/// A server whose counts never let a chunk fit: its list of hosts is more
/// than one answer, so the fleet is split by prefixes, and the reading
/// ends within its budget of queries or at the longest prefix a label can
/// have.
final class FleetSnapshotQueryBudgetTests: XCTestCase {
    private static let answerBound = 4 << 10

    private static func server(groups: [String]) throws -> LocalHTTPServer {
        try LocalHTTPServer { target in
            let query = URLComponents(string: target)?.queryItems?.first { $0.name == "query" }?.value ?? ""
            let result =
                query.hasPrefix("count by (host)")
                ? (0..<200).map { #"{"metric":{"host":"host\#($0).test"},"value":[1,"1e9"]}"# }.joined(separator: ",")
                : query.hasPrefix("count by")
                    ? groups.map { #"{"metric":{"pinwatch_next_characters":"\#($0)"},"value":[1,"1e9"]}"# }.joined(separator: ",") : ""
            return .body(
                status: 200, contentType: "application/json",
                Array(#"{"status":"success","data":{"resultType":"vector","result":[\#(result)]}}"#.utf8))
        }
    }

    private static func read(_ server: LocalHTTPServer, maximumQueries: Int = FleetSnapshotQuery.maximumQueries) throws -> Result<
        FleetSnapshot, FleetQueryProblem
    > {
        FleetSnapshotQuery(
            server: try XCTUnwrap(URL(string: "http://127.0.0.1:\(server.port)")), selector: nil, timeout: 5, maximumAnswer: answerBound,
            maximumQueries: maximumQueries
        ).read()
    }

    func testCountsThatNeverFitEndAtTheQueryBudget() throws {
        let server = try Self.server(groups: ["ab", "cd"])
        defer { server.stop() }
        let outcome = try Self.read(server, maximumQueries: 50)
        guard case .failure(let problem) = outcome else { return XCTFail("read a fleet that never fits") }
        XCTAssertTrue(problem.description.contains("more than 50 queries"), problem.description)
    }

    func testCountsThatNeverFitEndAtTheLongestPrefix() throws {
        let server = try Self.server(groups: ["abcdefgh"])
        defer { server.stop() }
        let outcome = try Self.read(server)
        guard case .failure(let problem) = outcome else { return XCTFail("read a fleet that never fits") }
        XCTAssertTrue(problem.description.contains("cannot be split"), problem.description)
    }
}
