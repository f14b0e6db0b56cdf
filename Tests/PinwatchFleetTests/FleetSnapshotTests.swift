import Foundation
import PinwatchCore
import XCTest

@testable import PinwatchFleet

/// DESIGN §17: Prometheus' instant-query JSON read back into a row per
/// host and vantage, untrusted and bounded.
final class FleetSnapshotTests: XCTestCase {
    private let now = Date(timeIntervalSince1970: 1_800_000_000)
    private let spki = Data(repeating: 7, count: 32).base64EncodedString()

    private func sample(_ labels: [String: String], _ value: String = "1") -> [String: Any] {
        ["metric": labels, "value": [1_800_000_000.5, value]]
    }

    private func answer(_ result: [[String: Any]]) throws -> Data {
        try JSONSerialization.data(withJSONObject: ["status": "success", "data": ["resultType": "vector", "result": result]])
    }

    private func reason(_ host: String, vantage: String?, headline: String, extra: [String: String] = [:]) -> [String: Any] {
        var labels = [
            "__name__": "pinwatch_host_reason_info", "host": host, "port": "443", "status": "ok", "severity": "ok", "headline": headline,
            "tiers": "ca", "reason": "a CA-tier pin matches: survives leaf renewals", "instance": "serve:1",
        ]
        if let vantage { labels["vantage"] = vantage }
        labels.merge(extra) { $1 }
        return sample(labels)
    }

    private func snapshot(_ result: [[String: Any]]) throws -> FleetSnapshot {
        try PrometheusVector.parse(try answer(result)).map(FleetSnapshot.init).get()
    }

    /// This release's shape: the pin result is a label of each level, the
    /// chain's earliest expiry one series at its level beside the leaf's.
    func testTheLevelsPinResultsAndTheChainsEarliestExpiryAreReadAtTheirLevels() throws {
        let host = ["host": "api.test", "port": "443", "instance": "serve:1"]
        func level(_ level: Int, _ role: String, pin: String, tier: String) -> [String: Any] {
            sample(
                host.merging([
                    "__name__": "pinwatch_chain_level_info", "level": "\(level)", "role": role, "spki_sha256": spki,
                    "subject": "CN=level \(level)", "pin": pin, "tier": tier,
                ]) { $1 })
        }
        XCTAssertTrue(FleetSnapshot.seriesNames.contains("pinwatch_chain_not_after_timestamp_seconds"))
        XCTAssertTrue(FleetSnapshot.seriesNames.contains("pinwatch_leaf_not_after_timestamp_seconds"))
        let fleet = try snapshot([
            reason("api.test", vantage: nil, headline: "ok"),
            level(0, "leaf", pin: "", tier: ""),
            level(1, "intermediate", pin: "mismatch", tier: "ca"),
            level(2, "root", pin: "match", tier: "ca"),
            sample(host.merging(["__name__": "pinwatch_leaf_not_after_timestamp_seconds"]) { $1 }, "1800864000"),
            sample(
                host.merging(["__name__": "pinwatch_chain_not_after_timestamp_seconds", "level": "1", "role": "intermediate"]) { $1 },
                "1800432000"),
        ])
        XCTAssertEqual(fleet.skipped, 0)
        let row = try XCTUnwrap(fleet.hosts.first)
        XCTAssertEqual(row.levels.map(\.pinMatches), [nil, false, true])
        XCTAssertEqual(row.levels.map(\.tier), [nil, .ca, .ca])
        XCTAssertEqual(
            row.levels.map(\.notAfter), [Date(timeIntervalSince1970: 1_800_864_000), Date(timeIntervalSince1970: 1_800_432_000), nil])
        let report = row.report(now: now)
        XCTAssertEqual(report.daysLeft, 5, "the chain's earliest expiry, not the leaf's")
        XCTAssertEqual(report.series?.pinnedLevels, [1, 2])
        XCTAssertEqual(report.series?.datedLevels, [0, 1])
        XCTAssertEqual(report.levels[2].matches.first?.pin.text, "sha256/" + spki)
    }

    /// An older exporter's shape (or one with `deprecated_series: true`):
    /// each level's date, and `pinwatch_pin_match`.
    func testEverySeriesShapeBecomesOneRowWithItsChain() throws {
        let host = ["host": "api.test", "port": "443", "vantage": "eu"]
        let fleet = try snapshot([
            reason("api.test", vantage: "eu", headline: "ok"),
            sample(host.merging(["__name__": "pinwatch_host_alert", "alert": "expiring"]) { $1 }),
            sample(host.merging(["__name__": "pinwatch_host_alert", "alert": "leaf_only"]) { $1 }, "0"),
            sample(host.merging(["__name__": "pinwatch_host_alert", "alert": "expiring", "job": "twice"]) { $1 }),
            sample(
                host.merging([
                    "__name__": "pinwatch_chain_level_info", "level": "1", "role": "intermediate", "spki_sha256": spki, "subject": "CN=R1",
                ]) {
                    $1
                }),
            sample(
                host.merging([
                    "__name__": "pinwatch_chain_level_info", "level": "0", "role": "leaf", "spki_sha256": spki, "subject": "CN=api.test",
                ]) {
                    $1
                }),
            sample(
                host.merging(["__name__": "pinwatch_chain_level_not_after_timestamp_seconds", "level": "0", "role": "leaf"]) { $1 },
                "1800864000"),
            sample(host.merging(["__name__": "pinwatch_pin_match", "level": "1", "tier": "ca"]) { $1 }),
            sample(["__name__": "pinwatch_last_cycle_timestamp_seconds", "instance": "a"], "1799999990"),
            sample(["__name__": "pinwatch_last_cycle_timestamp_seconds", "instance": "b"], "1799999970"),
        ])
        XCTAssertEqual(fleet.hosts.count, 1)
        let row = try XCTUnwrap(fleet.hosts.first)
        XCTAssertEqual(row.vantage, "eu")
        XCTAssertEqual(row.headline, .ok)
        XCTAssertEqual(row.matchedTiers, [.ca])
        XCTAssertEqual(row.alerts, [.expiring], "an alert at 0 is not present")
        XCTAssertEqual(row.levels.map(\.subject), ["CN=api.test", "CN=R1"])
        XCTAssertEqual(row.levels[0].notAfter, Date(timeIntervalSince1970: 1_800_864_000))
        XCTAssertEqual(row.levels[1].pinMatches, true)
        XCTAssertNil(row.levels[0].pinMatches)
        XCTAssertEqual(fleet.oldestCycle, Date(timeIntervalSince1970: 1_799_999_970))
        XCTAssertEqual(fleet.skipped, 0)

        let report = row.report(now: now)
        XCTAssertEqual(report.reason, "a CA-tier pin matches: survives leaf renewals", "the remote verdict, not a new one")
        XCTAssertEqual(report.severity, .ok)
        XCTAssertEqual(report.levels[1].matches.first?.pin.text, "sha256/" + spki)
        XCTAssertEqual(report.levels[0].daysLeft, 10)
        XCTAssertEqual(report.config.vantage, "eu")
    }

    func testVantagesAreRowsOfTheirOwnAndDisagreementIsFound() throws {
        let fleet = try snapshot([
            reason("api.test", vantage: "office", headline: "intercepted", extra: ["status": "blocked", "severity": "critical"]),
            reason("api.test", vantage: "eu", headline: "ok"),
            reason("www.test", vantage: "eu", headline: "ok"),
            reason("www.test", vantage: "office", headline: "ok"),
        ])
        XCTAssertEqual(
            fleet.hosts.map { "\($0.host)@\($0.vantage ?? "")" }, ["api.test@eu", "api.test@office", "www.test@eu", "www.test@office"])
        XCTAssertEqual(fleet.disagreeing, [fleet.hosts[0].hostKey])
        XCTAssertNotEqual(fleet.hosts[0].config.identityKey, fleet.hosts[1].config.identityKey)
        // The same row scraped twice (two Prometheus jobs) is shown once.
        let twice = try snapshot([reason("api.test", vantage: nil, headline: "ok"), reason("api.test", vantage: nil, headline: "ok")])
        XCTAssertEqual(twice.hosts.count, 1)
        XCTAssertEqual(twice.skipped, 1)
        XCTAssertTrue(twice.disagreeing.isEmpty)
    }

    func testSamplesWithoutTheLabelsAHostNeedsAreSkippedNotShown() throws {
        let fleet = try snapshot([
            sample(["__name__": "pinwatch_host_reason_info", "port": "443", "status": "ok", "severity": "ok", "headline": "ok"]),
            sample(["__name__": "pinwatch_host_reason_info", "host": "a.test", "status": "ok", "severity": "ok", "headline": "ok"]),
            sample([
                "__name__": "pinwatch_host_reason_info", "host": "a.test", "port": "99999", "status": "ok", "severity": "ok",
                "headline": "ok",
            ]),
            // An older serve: no status, severity or headline labels.
            sample(["__name__": "pinwatch_host_reason_info", "host": "old.test", "port": "443", "reason": "x"]),
            reason("b.test", vantage: nil, headline: "surprise"),
            sample(["__name__": "pinwatch_chain_level_info", "host": "c.test", "port": "443", "level": "x", "role": "leaf"]),
            ["metric": "not an object", "value": [0, "1"]],
            ["metric": ["host": "d.test"], "value": [0, "NaNx"]],
            reason("ok.test", vantage: nil, headline: "ok"),
        ])
        XCTAssertEqual(fleet.hosts.map(\.host), ["ok.test"])
        XCTAssertEqual(fleet.skipped, 8, "the two samples that are not the documented shape are counted too")
    }

    func testHostileLabelValuesAreSanitisedAndBounded() throws {
        let fleet = try snapshot([
            reason(
                "evil\u{1b}[2J.test", vantage: "v\u{7}", headline: "ok",
                extra: ["reason": "\u{1b}]52;c;cm0gLXJmIH4=\u{7}pwned\n" + String(repeating: "x", count: 5_000)])
        ])
        let row = try XCTUnwrap(fleet.hosts.first)
        for text in [row.host, row.reason, row.vantage ?? ""] {
            XCTAssertFalse(text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }, text)
        }
        XCTAssertLessThanOrEqual(row.reason.count, PrometheusVector.maximumLabelLength)
    }

    func testAnswersThatAreNotAVectorSayWhy() throws {
        let refused = try JSONSerialization.data(withJSONObject: [
            "status": "error", "errorType": "bad_data", "error": "parse error at char 3\u{1b}[31m",
        ])
        guard case .failure(let problem) = PrometheusVector.parse(refused) else { return XCTFail("accepted an error") }
        XCTAssertTrue(problem.description.contains("bad_data"), problem.description)
        XCTAssertFalse(problem.description.contains("\u{1b}"))
        let matrix = try JSONSerialization.data(withJSONObject: ["status": "success", "data": ["resultType": "matrix", "result": []]])
        guard case .failure = PrometheusVector.parse(matrix) else { return XCTFail("accepted a matrix") }
        guard case .failure = PrometheusVector.parse(Data("<html>".utf8)) else { return XCTFail("accepted HTML") }
        guard case .success(let empty) = PrometheusVector.parse(try answer([])) else { return XCTFail("refused an empty vector") }
        XCTAssertTrue(empty.samples.isEmpty)
        guard case .failure(let unavailable) = FleetQuery.outcome(body: Data(), status: 503) else { return XCTFail() }
        XCTAssertTrue(unavailable.description.contains("503"))
    }

    func testTheQueryAsksForEverySeriesWithTheSelector() throws {
        let query = FleetQuery(server: try XCTUnwrap(URL(string: "http://prom.test:9090/prefix/")), selector: "{job=\"pw\"}", timeout: 1)
        defer { query.close() }
        XCTAssertTrue(query.promQL.hasSuffix("\",job=\"pw\"}"), query.promQL)
        for name in FleetSnapshot.seriesNames { XCTAssertTrue(query.promQL.contains(name)) }
        let url = try XCTUnwrap(query.requestURL)
        XCTAssertTrue(url.absoluteString.hasPrefix("http://prom.test:9090/prefix/api/v1/query?query="), url.absoluteString)
        XCTAssertNil(FleetQuery.problem("http://127.0.0.1:9090"))
        XCTAssertNotNil(FleetQuery.problem("ftp://x"))
        XCTAssertNotNil(FleetQuery.problem("prom:9090"))
    }

    /// Rows in order by host, port and vantage; rows equal in those stay
    /// in the order they came, as a stable sort keeps them.
    func testRowsAreSortedByHostPortAndVantageKeepingTiesInOrder() {
        let rows = (0..<300).map { index in
            FleetHost(
                host: "h\(index * 7 % 13).test", port: 443 + index % 3, sni: nil, address: nil,
                vantage: index % 5 == 0 ? nil : "v\(index % 4)",
                status: .ok, severity: .ok, headline: .ok, matchedTiers: [], reason: "\(index)", alerts: [], failure: nil, levels: [])
        }
        var sorted = rows
        FleetSnapshot.sortInRowOrder(&sorted)
        let expected = rows.enumerated().sorted {
            ($0.element.host, $0.element.port, $0.element.vantage ?? "", $0.offset)
                < ($1.element.host, $1.element.port, $1.element.vantage ?? "", $1.offset)
        }
        XCTAssertEqual(sorted.map(\.reason), expected.map(\.element.reason))
        XCTAssertEqual(Set(sorted), Set(rows))
    }
}
