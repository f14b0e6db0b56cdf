import Foundation
import PinwatchCore
import PinwatchFleet
import PinwatchLocalWorld
import PinwatchTestSupport
import XCTest

/// `watch --prometheus` over a fleet larger than its window, on a real
/// Prometheus scraping a static exposition on 127.0.0.1: the header
/// counts the whole fleet, the first screen holds the worst rows,
/// scrolling down loads more, and opening a host's detail asks for what
/// only the detail shows. `PINWATCH_FLEET_WINDOW` keeps the fleet small.
final class FleetWindowTests: XCTestCase {
    private var directory: URL!
    private var exporter: LocalHTTPServer?

    /// A host name an exporter may publish: regular-expression
    /// metacharacters, a quote and a backslash.
    private static let hostile = #"we|ird.(x)"y\z.test"#

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-window-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        exporter?.stop()
        if let directory { try? FileManager.default.removeItem(at: directory) }
        super.tearDown()
    }

    private struct Row {
        var host: String
        var status: String
        var severity: String
        var pinMatches: Bool
        var vantage: String? = nil
    }

    /// An exposition label value: backslash, quote and line feed escaped.
    private static func label(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }

    /// Any 32 bytes: a pin that matches needs an SPKI digest to name.
    private static let spki = Data(repeating: 7, count: 32).base64EncodedString()

    /// What a `serve` of `rows` would publish, its cycle just now.
    private static func exposition(_ rows: [Row]) -> String {
        var lines = [
            "pinwatch_last_cycle_timestamp_seconds \(Date().timeIntervalSince1970)",
            "pinwatch_poll_interval_seconds 1",
        ]
        for row in rows {
            let host = "host=\"\(label(row.host))\",port=\"443\"" + (row.vantage.map { ",vantage=\"\($0)\"" } ?? "")
            lines += [
                "pinwatch_host_reason_info{\(host),status=\"\(row.status)\",severity=\"\(row.severity)\",headline=\"\(row.status)\","
                    + "tiers=\"\(row.pinMatches ? "ca" : "")\",reason=\"the \(row.status) reason\"} 1",
                "pinwatch_chain_level_info{\(host),level=\"0\",role=\"leaf\",subject=\"CN=\(label(row.host))\",spki_sha256=\"\"} 1",
                "pinwatch_chain_level_info{\(host),level=\"1\",role=\"intermediate\",subject=\"CN=Issuer\",spki_sha256=\"\(spki)\"} 1",
                "pinwatch_chain_level_not_after_timestamp_seconds{\(host),level=\"0\",role=\"leaf\"} 1900000000",
                "pinwatch_chain_level_not_after_timestamp_seconds{\(host),level=\"1\",role=\"intermediate\"} 1900000000",
                "pinwatch_pin_match{\(host),level=\"1\",tier=\"ca\"} \(row.pinMatches ? 1 : 0)",
                "pinwatch_probe_duration_seconds{\(host)} 0.321",
            ]
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The exposition on 127.0.0.1 and a Prometheus scraping it every second.
    private func prometheus(serving rows: [Row]) throws -> LocalPrometheus {
        let server = try LocalHTTPServer(lifetime: 10) { target in
            guard target.hasPrefix("/metrics") else { return .body(status: 404, contentType: "text/plain", Array("no\n".utf8)) }
            return .body(status: 200, contentType: "text/plain; version=0.0.4", Array(Self.exposition(rows).utf8))
        }
        exporter = server
        return try LocalPrometheus(scraping: [server.port], directory: directory)
    }

    private static let fleet: [Row] =
        [
            Row(host: "blocked-0.test", status: "blocked", severity: "critical", pinMatches: false),
            Row(host: "blocked-1.test", status: "blocked", severity: "critical", pinMatches: false),
            Row(host: hostile, status: "blocked", severity: "critical", pinMatches: false),
            Row(host: "leafonly.test", status: "leaf_only", severity: "warning", pinMatches: false),
        ] + (0..<10).map { Row(host: String(format: "ok-%02d.test", $0), status: "ok", severity: "ok", pinMatches: true) }

    /// `watch --prometheus` of `prometheus` under tmux, a window of four rows.
    private func watchWindowOfFour(_ prometheus: LocalPrometheus) throws -> TmuxSession {
        let invocation = [PinwatchBinary.url.path, "watch", "--prometheus", prometheus.url, "--interval", "1s", "--no-bell"]
            .map(TmuxSession.quote).joined(separator: " ")
        return try TmuxSession(
            command: "bash -c " + TmuxSession.quote(invocation + "; echo EXITED:$?; sleep 30"), columns: 200, rows: 50,
            environment: ["PINWATCH_FLEET_WINDOW": "4"])
    }

    /// The table's row of `name` (a banner line names it followed by a colon).
    /// `/`, then the prompt: keys typed before it would reach the table.
    private func openFilterPrompt(_ tmux: TmuxSession) throws {
        try tmux.send("/")
        try tmux.waitForScreen { $0.contains("Enter keep · Esc clear") }
    }

    private func row(_ screen: String, _ name: String) -> String? {
        screen.split(separator: "\n").map(String.init).first { $0.contains(name + ":443 ") }
    }

    func testAFleetLargerThanTheWindowCountsItAllShowsTheWorstAndPages() throws {
        let prometheus = try prometheus(serving: Self.fleet)
        let tmux = try watchWindowOfFour(prometheus)
        defer { tmux.close() }

        // The worst four of fourteen; the header counts all fourteen.
        let first = try tmux.waitForScreen(timeout: 60) { $0.contains("rows 1–4 of 14 (worst first; scroll down for more)") }
        XCTAssertTrue(first.contains(" 14 hosts "), first)
        XCTAssertTrue(first.contains(" 3 critical "), first)
        XCTAssertTrue(first.contains(" 1 warning "), first)
        for name in ["blocked-0.test", "blocked-1.test", Self.hostile, "leafonly.test"] {
            XCTAssertNotNil(row(first, name), "\(name) is among the worst:\n\(first)")
        }
        XCTAssertFalse(first.contains("ok-0"), "no ok row in a window the worse ones fill:\n\(first)")
        // The hostile name's facts came back through its escaped regex: its chain, not "—".
        XCTAssertTrue(row(first, Self.hostile)?.contains("I✗") ?? false, first)

        // The detail asks for what only it shows (the probe's time).
        try tmux.send("/")
        try tmux.type("ird")
        try tmux.send("Enter")
        try tmux.send("Enter")
        let detail = try tmux.waitForScreen(timeout: 20) { $0.contains("detail: \(Self.hostile)") && $0.contains("321 ms") }
        XCTAssertTrue(detail.contains("CN=\(Self.hostile)"), detail)
        try tmux.send("Escape")
        try tmux.send("/")
        try tmux.send("C-u")
        try tmux.send("Escape")
        // The filter looked for "ird" in the whole fleet: the worst four come back once it is cleared.
        try tmux.waitForScreen(timeout: 20) {
            !$0.contains("detail:") && !$0.contains("filter “") && $0.contains("rows 1–4 of 14") && self.row($0, "leafonly.test") != nil
        }

        // The last row asks for a page more, until the fleet is loaded.
        try tmux.send("G")
        let paged = try tmux.waitForScreen(timeout: 20) { $0.contains("rows 1–8 of 14") }
        XCTAssertEqual((0..<10).filter { paged.contains(String(format: "ok-%02d.test", $0)) }.count, 4, paged)
        try tmux.send("G")
        try tmux.waitForScreen(timeout: 20) { $0.contains("rows 1–12 of 14") }
        try tmux.send("G")
        let all = try tmux.waitForScreen(timeout: 20) { screen in
            !screen.contains("rows 1–") && (0..<10).allSatisfy { screen.contains(String(format: "ok-%02d.test", $0)) }
        }
        XCTAssertTrue(all.contains(" 14 hosts "), all)
        XCTAssertTrue(row(all, "ok-03.test")?.contains("I✓") ?? false, all)
        try tmux.send("q")
        try tmux.waitForScreen(timeout: 10) { $0.contains("EXITED:0") }
    }

    /// A name typed at `/` is looked for in the whole fleet, not only among
    /// the rows loaded; cleared, the worst rows come back.
    func testANameFilterFindsAHostOutsideTheWindow() throws {
        let prometheus = try prometheus(serving: Self.fleet)
        let tmux = try watchWindowOfFour(prometheus)
        defer { tmux.close() }
        try tmux.waitForScreen(timeout: 60) { $0.contains("rows 1–4 of 14") }

        try openFilterPrompt(tmux)
        try tmux.type("OK-07")
        try tmux.send("Enter")
        let found = try tmux.waitForScreen(timeout: 20) { $0.contains("filter “OK-07”") && self.row($0, "ok-07.test") != nil }
        XCTAssertNil(row(found, "blocked-0.test"), found)
        XCTAssertTrue(row(found, "ok-07.test")?.contains("I✓") ?? false, "its chain came with it:\n\(found)")
        try tmux.send("Enter")
        try tmux.waitForScreen(timeout: 20) { $0.contains("detail: ok-07.test") && $0.contains("321 ms") }
        try tmux.send("Escape")
        try tmux.waitForScreen { !$0.contains("detail:") }

        try openFilterPrompt(tmux)
        try tmux.send("C-u")
        try tmux.send("Escape")
        let back = try tmux.waitForScreen(timeout: 20) { $0.contains("rows 1–4 of 14") && self.row($0, "blocked-0.test") != nil }
        XCTAssertNil(row(back, "ok-07.test"), back)
        try tmux.send("q")
        try tmux.waitForScreen(timeout: 10) { $0.contains("EXITED:0") }
    }

    /// A window of many hosts makes a query longer than a URL should be:
    /// it goes as a form POST, and Prometheus answers it.
    func testAWindowOfManyHostsIsAskedByPost() throws {
        let rows = (0..<80).map {
            Row(host: "a-rather-long-host-name-\($0).fleet.example.test", status: "ok", severity: "ok", pinMatches: true)
        }
        let prometheus = try prometheus(serving: rows)
        let query = FleetQuery(server: try XCTUnwrap(URL(string: prometheus.url)), selector: nil, timeout: 10)
        defer { query.close() }
        XCTAssertNotNil(query.request(for: query.plan.facts(hosts: rows.map(\.host)))?.form, "the facts' query is posted")
        var window: FleetWindow?
        try waitUntil(timeout: 60, "every row with its chain") {
            window = try? fetch(query, FleetWindowRequest(window: 100)).get()
            return window?.snapshot.hosts.count == 80 && window?.snapshot.hosts.allSatisfy { $0.levels.count == 2 } == true
        }
        XCTAssertEqual(window?.counts.total, 80)
        XCTAssertEqual(window?.queries, 3, "counts, rows, facts")
    }

    /// Prometheus counts the hosts whose vantages disagree, loaded or not;
    /// which loaded ones they are is asked only when it counts some.
    func testVantagesThatDisagreeAreCountedByPrometheus() throws {
        let prometheus = try prometheus(serving: [
            Row(host: "a.test", status: "blocked", severity: "critical", pinMatches: false, vantage: "lan"),
            Row(host: "a.test", status: "blocked", severity: "critical", pinMatches: false, vantage: "office"),
            Row(host: "z.test", status: "ok", severity: "ok", pinMatches: true, vantage: "lan"),
            Row(host: "z.test", status: "leaf_only", severity: "warning", pinMatches: false, vantage: "office"),
        ])
        let query = FleetQuery(server: try XCTUnwrap(URL(string: prometheus.url)), selector: nil, timeout: 10)
        defer { query.close() }
        var narrow: FleetWindow?
        try waitUntil(timeout: 60, "every row scraped") {
            narrow = try? fetch(query, FleetWindowRequest(window: 2)).get()
            return narrow?.counts.total == 4
        }
        XCTAssertEqual(narrow?.snapshot.hosts.map(\.host), ["a.test", "a.test"], "the critical rows first")
        XCTAssertEqual(narrow?.counts.disagreeing, 1)
        XCTAssertEqual(narrow?.snapshot.disagreeing, [], "z.test is not loaded")
        XCTAssertEqual(narrow?.queries, 4, "counts, rows, facts, disagreement among the loaded")
        let whole = try fetch(query, FleetWindowRequest(window: 4)).get()
        XCTAssertEqual(whole.snapshot.disagreeing, ["z.test:443/z.test@"])
        XCTAssertEqual(whole.snapshot.hosts.filter { whole.snapshot.disagreeing.contains($0.hostKey) }.map(\.vantage), ["lan", "office"])
    }

    /// What `serve` publishes, from its own renderer: a host's chain is
    /// one series naming its CA levels, written once for every host under
    /// them. The window (its facts joined to the CA levels of the loaded
    /// rows' chains) and the chunked snapshot (the CA levels asked with the
    /// instances) put each host's levels back together, each with its pin
    /// result: what the table's chain column and the detail show.
    func testTheExportersChainSeriesComeBackAsEachHostsLevels() throws {
        @Sendable func digest(_ seed: UInt8) -> [UInt8] { [UInt8](repeating: seed, count: 32) }
        @Sendable func pin(_ seed: UInt8) -> Pin { Pin(kind: .spki, digest: digest(seed), text: PinText.sha256(digest(seed))) }
        @Sendable func report(_ name: String, leafKey: UInt8, intermediateKey: UInt8, ca: [Pin], leaf: [Pin], now: Date) -> HostReport {
            let subjects = ["CN=\(name)", "CN=Issuing CA \(intermediateKey)", "CN=Test Root"]
            let keys = [leafKey, intermediateKey, 3]
            let chain = (0..<3).map { level in
                ChainCertificate(
                    facts: CertificateFacts(
                        subject: subjects[level], issuer: subjects[min(level + 1, 2)], notBefore: now.addingTimeInterval(-86_400 * 30),
                        notAfter: now.addingTimeInterval(86_400 * 90), keyDescription: "ECDSA P-256", spkiSHA256: digest(keys[level]),
                        keySHA256: digest(keys[level]), certSHA256: digest(keys[level] &+ 100), isSelfSigned: level == 2),
                    fromServer: level < 2)
            }
            let host = HostConfig(host: name, port: 443, pins: PinSet(ca: ca, leaf: leaf))
            let result = ProbeResult(address: "127.0.0.1", chain: chain, sentCount: 2, trusted: true, elapsed: 0.01, finishedAt: now)
            return Verdict.report(for: host, result: result, now: now, warnDays: 21, criticalDays: 7)
        }
        @Sendable func reports(_ now: Date) -> [HostReport] {
            [
                report("a.test", leafKey: 11, intermediateKey: 2, ca: [pin(3)], leaf: [pin(11)], now: now),
                report("b.test", leafKey: 12, intermediateKey: 2, ca: [pin(2)], leaf: [], now: now),
                report("c.test", leafKey: 13, intermediateKey: 4, ca: [pin(99)], leaf: [], now: now),
                report("d.test", leafKey: 14, intermediateKey: 2, ca: [], leaf: [], now: now),
            ]
        }
        let text = PrometheusExposition.render(reports(Date()), cycle: nil, version: "test")
        XCTAssertEqual(text.components(separatedBy: "\npinwatch_ca_level_info{").count - 1, 4, "two chains of two CA levels:\n\(text)")
        XCTAssertFalse(text.contains("pinwatch_chain_level_info"), text)

        let server = try LocalHTTPServer(lifetime: 10) { target in
            guard target.hasPrefix("/metrics") else { return .body(status: 404, contentType: "text/plain", Array("no\n".utf8)) }
            let now = Date()
            let cycle = PrometheusExposition.Cycle(finishedAt: now, duration: 0.1, completedCycles: 1, interval: 1)
            return .body(
                status: 200, contentType: PrometheusExposition.contentType,
                Array(PrometheusExposition.render(reports(now), cycle: cycle, version: "test").utf8))
        }
        exporter = server
        let prometheus = try LocalPrometheus(scraping: [server.port], directory: directory)
        let url = try XCTUnwrap(URL(string: prometheus.url))

        /// Each level as the view reads it: subject, SPKI seed, role, tier and pin result.
        func levels(_ snapshot: FleetSnapshot?, _ name: String) -> [String] {
            (snapshot?.hosts.first { $0.host == name }?.levels ?? []).map { level in
                let pinned = level.pinMatches.map { $0 ? "match" : "mismatch" } ?? "-"
                return "\(level.level) \(level.role.rawValue) \(level.subject) key \(level.spkiSHA256.first ?? 0) "
                    + "\(level.tier?.rawValue ?? "-") \(pinned)"
            }
        }
        let expected = [
            "a.test": [
                "0 leaf CN=a.test key 11 leaf match", "1 intermediate CN=Issuing CA 2 key 2 ca mismatch",
                "2 root CN=Test Root key 3 ca match",
            ],
            "b.test": [
                "0 leaf CN=b.test key 12 - -", "1 intermediate CN=Issuing CA 2 key 2 ca match", "2 root CN=Test Root key 3 ca mismatch",
            ],
            "c.test": [
                "0 leaf CN=c.test key 13 - -", "1 intermediate CN=Issuing CA 4 key 4 ca mismatch",
                "2 root CN=Test Root key 3 ca mismatch",
            ],
            "d.test": ["0 leaf CN=d.test key 14 - -", "1 intermediate CN=Issuing CA 2 key 2 - -", "2 root CN=Test Root key 3 - -"],
        ]

        let query = FleetQuery(server: url, selector: nil, timeout: 10)
        defer { query.close() }
        var window: FleetWindow?
        try waitUntil(timeout: 60, "every row with its three levels") {
            window = try? fetch(query, FleetWindowRequest(window: 10)).get()
            return window?.snapshot.hosts.count == 4 && window?.snapshot.hosts.allSatisfy { $0.levels.count == 3 } == true
        }
        for (name, want) in expected { XCTAssertEqual(levels(window?.snapshot, name), want, "window: \(name)") }
        XCTAssertEqual(window?.snapshot.skipped, 0)

        let snapshot = try FleetSnapshotQuery(server: url, selector: nil, timeout: 10).read().get()
        for (name, want) in expected { XCTAssertEqual(levels(snapshot, name), want, "snapshot: \(name)") }
        XCTAssertEqual(snapshot.skipped, 0)
        // A chunk of one host still finds its CA levels.
        let chunked = try FleetSnapshotQuery(server: url, selector: nil, timeout: 10, seriesPerChunk: 8).read().get()
        for (name, want) in expected { XCTAssertEqual(levels(chunked, name), want, "chunked: \(name)") }
    }

    private func fetch(_ query: FleetQuery, _ request: FleetWindowRequest) -> Result<FleetWindow, FleetQueryProblem> {
        let done = DispatchSemaphore(value: 0)
        let box = WindowBox()
        query.fetchWindow(request) { outcome in
            box.outcome = outcome
            done.signal()
        }
        _ = done.wait(timeout: .now() + 30)
        return box.outcome ?? .failure(FleetQueryProblem("no answer within 30 s"))
    }
}

private final class WindowBox: @unchecked Sendable {
    var outcome: Result<FleetWindow, FleetQueryProblem>?
}
