import Foundation
import PinwatchCore
import XCTest

@testable import PinwatchFleet

/// The fleet view's queries: Prometheus counts the fleet and picks the
/// worst rows; host names from an answer go back into a query escaped.
final class FleetQueryPlanTests: XCTestCase {
    private let plain = FleetQueryPlan(selector: "", probeSeries: false)
    private let matched = FleetQueryPlan(selector: "job=\"pw\"", probeSeries: true)

    private func count(_ labels: [String: String], _ value: Double) -> VectorSample {
        VectorSample(labels: labels, value: value)
    }

    func testTheCountsAskPrometheusToCountTheWholeFleet() {
        XCTAssertTrue(plain.counts.hasPrefix("count by (severity, status, headline) ((pinwatch_host_reason_info and on (job, instance)"))
        XCTAssertTrue(plain.counts.contains("pinwatch_host_acknowledged == 1"), plain.counts)
        // Without --match the /probe rows are counted apart, not shown.
        XCTAssertTrue(plain.counts.contains("unless on (job, instance) pinwatch_last_cycle_timestamp_seconds"), plain.counts)
        XCTAssertFalse(matched.counts.contains("unless"), matched.counts)
        XCTAssertTrue(matched.counts.contains("pinwatch_host_reason_info{job=\"pw\"}"), matched.counts)
        // Disagreement between vantages: counted by Prometheus.
        XCTAssertTrue(
            plain.counts.contains("count by (host, port, sni, address) (count by (host, port, sni, address, headline) ("), plain.counts)
        XCTAssertTrue(plain.counts.contains("vantage!=\"\""), plain.counts)
        XCTAssertTrue(plain.counts.hasSuffix("{__name__=~\"pinwatch_last_cycle_timestamp_seconds|pinwatch_poll_interval_seconds\"}"))
    }

    func testTheCountsAnswerIsReadByPart() {
        let group = ["severity": "critical", "status": "blocked", "headline": "blocked"]
        let counts = FleetCounts([
            count(group, 7),
            count(["severity": "ok", "status": "ok", "headline": "ok"], 90_000),
            count(group.merging(["pinwatch_count": "acknowledged"]) { $1 }, 2),
            count(["pinwatch_count": "disagreeing"], 3),
            count(["pinwatch_count": "probe"], 4),
            count(["__name__": "pinwatch_last_cycle_timestamp_seconds", "instance": "a"], 1_800_000_000),
            count(["severity": "ok", "status": "ok", "headline": "ok"], 0.5),
            count(["severity": "bogus", "status": "ok", "headline": "ok"], 5),
        ])
        XCTAssertEqual(counts.total, 90_007)
        XCTAssertEqual(counts.total(of: .critical), 7)
        XCTAssertEqual(counts.acknowledgedTotal, 2)
        XCTAssertEqual(counts.disagreeing, 3)
        XCTAssertEqual(counts.probeRows, 4)
    }

    func testTheBandsFillTheWindowWorstFirst() throws {
        var counts = FleetCounts()
        counts.rows[FleetCounts.Group(severity: .ok, status: .ok, headline: .ok)] = 100_000
        counts.rows[FleetCounts.Group(severity: .warning, status: .leafOnly, headline: .leafOnly)] = 50
        counts.rows[FleetCounts.Group(severity: .critical, status: .blocked, headline: .blocked)] = 3
        let bands = FleetQueryPlan.bands(counts, window: 200)
        XCTAssertEqual(bands.map(\.severity), [.critical, .warning, .ok])
        XCTAssertEqual(bands.map(\.count), [3, 50, 147])
        XCTAssertEqual(FleetQueryPlan.bands(counts, window: 2).map(\.count), [2], "the window full, no band more")
        let rows = try XCTUnwrap(plain.rows(bands))
        XCTAssertEqual(rows.components(separatedBy: " or ").count, 3, rows)
        XCTAssertTrue(rows.hasPrefix("topk(3, (pinwatch_host_reason_info{severity=\"critical\"} and on (job, instance)"), rows)
        XCTAssertTrue(rows.contains("topk(147, (pinwatch_host_reason_info{severity=\"ok\"}"), rows)
        XCTAssertNil(plain.rows(FleetQueryPlan.bands(FleetCounts(), window: 200)), "no rows: nothing asked")
    }

    /// A name typed at `/`: every band is ranked among the hosts whose name
    /// holds it (the counts are the whole fleet's, so none is cut short),
    /// the text matched as itself, any case.
    func testANameFilterRanksEveryBandAmongTheHostsNamed() throws {
        var counts = FleetCounts()
        counts.rows[FleetCounts.Group(severity: .ok, status: .ok, headline: .ok)] = 100_000
        counts.rows[FleetCounts.Group(severity: .critical, status: .blocked, headline: .blocked)] = 300
        let bands = FleetQueryPlan.bands(counts, window: 250, filtered: true)
        XCTAssertEqual(bands.map(\.severity), [.critical, .ok])
        XCTAssertEqual(bands.map(\.count), [250, 250])
        let rows = try XCTUnwrap(plain.rows(bands, hostContains: "api.(v2)"))
        XCTAssertTrue(rows.contains(#"topk(250, (pinwatch_host_reason_info{severity="ok",host=~"(?i).*api\\.\\(v2\\).*"}"#), rows)
        XCTAssertEqual(rows.components(separatedBy: "host=~").count, 3, "both bands: \(rows)")
    }

    /// `--match '{host=~"api.*"}'` names no label an exporter's own series
    /// have: they are picked by the exporters of the rows it matches.
    func testAnExportersOwnSeriesComeFromTheExportersOfTheMatchedRows() {
        let byHost = FleetQueryPlan(selector: #"host=~"api.*""#, probeSeries: true)
        let cycles = byHost.exporterSeries([.lastCycle, .pollInterval])
        XCTAssertEqual(
            cycles,
            #"({__name__=~"pinwatch_last_cycle_timestamp_seconds|pinwatch_poll_interval_seconds"} and on (job, instance) group by (job, instance) (pinwatch_host_reason_info{host=~"api.*"}))"#
        )
        XCTAssertTrue(byHost.counts.contains(cycles), byHost.counts)
        XCTAssertEqual(
            plain.exporterSeries([.lastCycle]), #"{__name__="pinwatch_last_cycle_timestamp_seconds"}"#, "no --match: no join")
    }

    func testTheWindowAsksTheTableFamiliesAndTheDetailTheRest() {
        let facts = matched.facts(hosts: ["b.test", "a.test", "b.test"])
        let hosts = "host=~\"a\\\\.test|b\\\\.test\""
        XCTAssertTrue(facts.hasPrefix("{__name__=~\""), facts)
        XCTAssertTrue(facts.contains(",job=\"pw\",\(hosts)} or "), facts)
        for family in FleetQueryPlan.rowFamilies { XCTAssertTrue(facts.contains(family.rawValue), family.rawValue) }
        XCTAssertTrue(facts.contains(MetricFamilyName.chainInfo.rawValue), "the table's chain column reads the chain")
        XCTAssertTrue(facts.contains(MetricFamilyName.chainLevelInfo.rawValue), "and an older exporter's levels")
        // The CA levels carry no host: those the rows' chains name, by the
        // instance that wrote both.
        XCTAssertTrue(
            facts.hasSuffix(
                " or (pinwatch_ca_level_info and on (job, instance, ca_chain) pinwatch_chain_info{job=\"pw\",\(hosts)})"),
            facts)
        XCTAssertFalse(FleetQueryPlan.rowFamilies.contains(.caLevelInfo))
        XCTAssertTrue(FleetQueryPlan.factFamilies.contains(.caLevelInfo))
        for family in FleetQueryPlan.detailFamilies { XCTAssertFalse(facts.contains(family.rawValue), family.rawValue) }
        let detail = matched.detail(host: "a.test", port: 8443)
        XCTAssertEqual(
            detail,
            "{__name__=~\"pinwatch_address_status|pinwatch_probe_duration_seconds|pinwatch_next_chain_survives\",job=\"pw\",host=\"a.test\",port=\"8443\"}"
        )
    }

    /// A host name is the exporter's to choose: regular-expression
    /// metacharacters match themselves, a quote or backslash does not end
    /// or bend the PromQL string.
    func testHostileHostNamesAreEscapedForTheRegexAndTheString() throws {
        let hostile = ["a.b", "x|y", "(.*)", "q\"r", "s\\t", "^[z]{2}$+?", "ünï.test", "tab\there"]
        let pattern = FleetQueryPlan.alternation(hostile)
        let regex = try NSRegularExpression(pattern: "^(?:\(pattern))$")
        func matches(_ text: String) -> Bool {
            regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
        }
        for name in hostile { XCTAssertTrue(matches(name), name) }
        for other in ["axb", "x", "y", "anything", "q\"rr", "zz", ""] { XCTAssertFalse(matches(other), other) }

        XCTAssertEqual(FleetQueryPlan.literal("a.b"), "\"a.b\"")
        XCTAssertEqual(FleetQueryPlan.literal(FleetQueryPlan.escapedForRegex("a.b")), "\"a\\\\.b\"")
        XCTAssertEqual(FleetQueryPlan.literal("q\"r\\s"), "\"q\\\"r\\\\s\"")
        XCTAssertEqual(FleetQueryPlan.literal("ü\n"), "\"\\u00fc\\u000a\"")
        let detail = plain.detail(host: "x\"} or vector(1) #", port: 443)
        XCTAssertTrue(detail.contains("host=\"x\\\"} or vector(1) #\""), detail)
    }

    func testALongQueryIsPostedAsAForm() throws {
        let query = FleetQuery(server: try XCTUnwrap(URL(string: "http://prom.test:9090/prefix")), selector: nil, timeout: 1)
        defer { query.close() }
        let short = try XCTUnwrap(query.request(for: "up"))
        XCTAssertNil(short.form)
        XCTAssertEqual(short.url.absoluteString, "http://prom.test:9090/prefix/api/v1/query?query=up")
        let hosts = (0..<300).map { "host\($0).example.test" }
        let long = try XCTUnwrap(query.request(for: query.plan.facts(hosts: hosts)))
        XCTAssertEqual(long.url.absoluteString, "http://prom.test:9090/prefix/api/v1/query")
        let form = try XCTUnwrap(long.form)
        XCTAssertTrue(form.hasPrefix("query=%7B__name__%3D~%22"), form)
        XCTAssertEqual(form.removingPercentEncoding?.dropFirst(6).description, query.plan.facts(hosts: hosts))
        XCTAssertFalse(form.contains("+"), "a plus would read as a space")
    }
}
