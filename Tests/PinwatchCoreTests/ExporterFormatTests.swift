import Foundation
import XCTest

@testable import PinwatchCore

/// The pure parts of `serve`: exposition text, shards, `/probe` queries,
/// hook configuration and events (DESIGN §15, §16).
final class ExporterFormatTests: XCTestCase {
    private typealias F = Fixtures

    func testExpositionHasOneSeverityValuePerHostAndEscapesLabels() {
        var chain = F.chain()
        chain[0].facts.subject = "CN=\"quoted\" \\ back\nslash"
        let host = HostConfig(host: "api.example.com", pins: PinSet(ca: [F.spkiPin(3)], leaf: [F.spkiPin(1)]))
        let report = F.report(host, F.result(chain: chain))
        let text = PrometheusExposition.render(
            [report], cycle: .init(finishedAt: F.now, duration: 1.5, completedCycles: 7), version: "0.1.0")
        let severityLines = text.split(separator: "\n").filter { $0.hasPrefix("pinwatch_host_severity_code{") }
        XCTAssertEqual(severityLines, ["pinwatch_host_severity_code{host=\"api.example.com\",port=\"443\"} 0"])
        XCTAssertTrue(text.contains(#"subject="CN=\"quoted\" \\ back slash",leaf_pin="match",ca_pin="match""#), text)
        XCTAssertTrue(text.contains("pinwatch_leaf_not_after_timestamp_seconds{host=\"api.example.com\",port=\"443\"} 1805184000"), text)
        // The sni label appears only where it differs from the host.
        let other = F.report(HostConfig(host: "10.0.0.1", serverName: "api.example.com"), F.result(chain: F.chain()))
        let withSNI = PrometheusExposition.render([other], cycle: nil, version: "0")
        XCTAssertTrue(
            withSNI.contains(
                "pinwatch_host_severity_code{host=\"10.0.0.1\",port=\"443\",sni=\"api.example.com\"} \(CheckState(other.severity).rawValue)\n"
            ),
            withSNI)
        XCTAssertTrue(text.contains("pinwatch_cycle_duration_seconds 1.500\n"))
        XCTAssertTrue(text.contains("pinwatch_cycles_total 7\n"))
        // Every family is announced once, before its samples.
        for family in [
            "pinwatch_host_severity_code", "pinwatch_host_reason_info", "pinwatch_chain_info", "pinwatch_ca_level_info", "pinwatch_hosts",
        ] {
            XCTAssertEqual(text.components(separatedBy: "# TYPE \(family) ").count, 2, family)
        }
        XCTAssertFalse(text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
    }

    /// Two backends behind one name (`connect:`) were once one
    /// label set, and Prometheus kept only one of them.
    func testHostsThatDifferOnlyByConnectAreDistinctSeries() throws {
        let hosts = ["10.0.0.1", "10.0.0.2"].map { address in
            HostConfig(host: "api.example.com", connectAddress: address, pins: PinSet(ca: [F.spkiPin(3)]))
        }
        let reports = hosts.map { F.report($0, F.result(chain: F.chain())) }
        let text = PrometheusExposition.render(reports, cycle: nil, version: "0")
        let samples = text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { $0.split(separator: " ")[0] }
        XCTAssertEqual(Set(samples).count, samples.count, "no two samples share a name and label set")
        for address in ["10.0.0.1", "10.0.0.2"] {
            XCTAssertTrue(
                text.contains("pinwatch_host_severity_code{host=\"api.example.com\",port=\"443\",address=\"\(address)\"} 0"),
                text)
        }
        let plain = PrometheusExposition.render([F.report(F.host(), F.result(chain: F.chain()))], cycle: nil, version: "0")
        XCTAssertFalse(plain.contains("address="), "no address label without connect:")

        let down = F.report(hosts[1], .failed(ProbeFailure(kind: .refused, message: "refused"), elapsed: 0))
        let event = try XCTUnwrap(SeverityTransition.between(reports[1], down, at: F.now))
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(event.json.utf8)) as? [String: Any])
        XCTAssertEqual(object["connect"] as? String, "10.0.0.2")
        let unconnected = F.report(F.host(), .failed(ProbeFailure(kind: .refused, message: "refused"), elapsed: 0))
        let plainEvent = try XCTUnwrap(SeverityTransition.between(nil, unconnected, at: F.now))
        let plainObject = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(plainEvent.json.utf8)) as? [String: Any])
        XCTAssertTrue(plainObject["connect"] is NSNull, "connect is null without connect:")
    }

    /// The reason as an info series (what alert
    /// annotations quote), the configured interval (what the staleness
    /// rule compares with), and a probe_success that reads 0 for a host
    /// pinned clients refuse.
    func testReasonIntervalAndProbeSuccessForAlertRules() {
        let blocked = F.report(F.host(ca: [F.spkiPin(50)]), F.result(chain: F.chain()))
        let ok = F.report(F.host(ca: [F.spkiPin(3)]), F.result(chain: F.chain()))
        let cycle = PrometheusExposition.Cycle(finishedAt: F.now, duration: 1, completedCycles: 1, interval: 300)
        let text = PrometheusExposition.render([blocked], cycle: cycle, version: "0")
        XCTAssertTrue(
            text.contains(
                "pinwatch_host_reason_info{host=\"api.example.com\",port=\"443\",status=\"blocked\",severity=\"critical\","
                    + "headline=\"blocked\",tiers=\"\","
                    + "reason=\"pinned clients refuse this host now: no configured pin matches the chain\"} 1\n"), text)
        XCTAssertEqual(text.components(separatedBy: "# TYPE pinwatch_host_reason_info gauge").count, 2)
        XCTAssertTrue(text.contains("pinwatch_poll_interval_seconds 300\n"), text)

        var chain = F.chain()
        chain[1].facts.subject = "CN=\"R\\11\"\nX"
        chain[1].facts.notAfter = F.now.addingTimeInterval(3 * F.day)
        let quoted = F.report(F.host(ca: [F.spkiPin(3)]), F.result(chain: chain))
        let escaped = PrometheusExposition.render([quoted], cycle: nil, version: "0")
        XCTAssertTrue(escaped.contains(#"reason="the intermediate CN=\"R\\11\" X expires 2027-01-18"} 1"#), escaped)

        XCTAssertFalse(PrometheusExposition.probeSuccess(blocked), "blocked is not a success")
        XCTAssertFalse(PrometheusExposition.probeSuccess(quoted), "critical expiry is not a success")
        XCTAssertTrue(PrometheusExposition.probeSuccess(ok))
        let failed = F.report(F.host(), .failed(ProbeFailure(kind: .timeout, message: "timed out"), elapsed: 5))
        XCTAssertFalse(PrometheusExposition.probeSuccess(failed))
    }

    /// A label value that changes starts a new series: the reason label
    /// names the day a count of days counts to, so an expiring host and a
    /// leaf-only host with a renewal estimate keep one series from one day
    /// to the next, while every other output keeps the count.
    func testTheReasonLabelNamesDaysNotCountsOfDays() throws {
        var chain = F.chain()
        chain[1].facts.notAfter = F.now.addingTimeInterval(12 * F.day)
        let renewal = HostHistory(renewal: RenewalEstimate(date: F.now.addingTimeInterval(40 * F.day), basis: .lifetime))
        let cases: [(HostConfig, HostHistory?, String)] = [
            (F.host(ca: [F.spkiPin(3)]), nil, "the intermediate CN=R11 expires 2027-01-27"),
            (
                F.host(leaf: [F.spkiPin(1)]), renewal,
                "only the leaf pin still matches: breaks ~2027-02-24 (next leaf renewal) (intermediate CN=R11 expires 2027-01-27)"
            ),
        ]
        for (host, history, expected) in cases {
            var lines: [String] = []
            var reasons: [String] = []
            for offset in [0.0, 1] {
                let now = F.now.addingTimeInterval(offset * F.day)
                var report = Verdict.report(for: host, result: F.result(chain: chain), now: now, warnDays: 21, criticalDays: 7)
                if let history { report = report.with(history: history, now: now) }
                reasons.append(report.reason)
                let text = PrometheusExposition.render([report], cycle: nil, version: "0")
                lines.append(
                    try XCTUnwrap(text.split(separator: "\n").first { $0.hasPrefix("pinwatch_host_reason_info{") }.map(String.init)))
            }
            XCTAssertEqual(Set(lines).count, 1, "one series from one day to the next: \(lines)")
            XCTAssertTrue(lines[0].contains("reason=\"\(expected)\"} 1"), lines[0])
            XCTAssertNil(lines[0].firstMatch(of: try Regex("[0-9]+ days?")), lines[0])
            XCTAssertEqual(Set(reasons).count, 2, "the reason elsewhere counts the days: \(reasons)")
            XCTAssertTrue(reasons[0].contains("expires in 12 days"), reasons[0])
        }
    }

    /// The renewal-overdue sentence counts a share and days that move every
    /// day; its label names the leaf's expiry date instead.
    func testTheRenewalOverdueLabelStaysOneSeriesFromDayToDay() throws {
        var chain = F.chain()
        chain[0].facts.notBefore = F.now.addingTimeInterval(-180 * F.day)
        chain[0].facts.notAfter = F.now.addingTimeInterval(60 * F.day)
        var lines: [String] = []
        var reasons: [String] = []
        for offset in [0.0, 1] {
            let now = F.now.addingTimeInterval(offset * F.day)
            let report = Verdict.report(
                for: F.host(ca: [F.spkiPin(3)]), result: F.result(chain: chain), now: now, warnDays: 21, criticalDays: 7)
            XCTAssertEqual(report.headline, .renewalOverdue, report.reason)
            reasons.append(report.reason)
            let text = PrometheusExposition.render([report], cycle: nil, version: "0")
            lines.append(
                try XCTUnwrap(text.split(separator: "\n").first { $0.hasPrefix("pinwatch_host_reason_info{") }.map(String.init)))
        }
        XCTAssertEqual(Set(lines).count, 1, "one series from one day to the next: \(lines)")
        let expiry = DateText.day(chain[0].facts.notAfter)
        XCTAssertTrue(
            lines[0].contains(
                "reason=\"the leaf is past renew_share of its 240-day lifetime and has not been renewed: "
                    + "renewal may be failing (expires \(expiry))\"} 1"), lines[0])
        XCTAssertEqual(Set(reasons).count, 2, "the reason elsewhere counts: \(reasons)")
    }

    func testShardsAreStableAndCoverEveryHostOnce() {
        let hosts = (0..<300).map { HostConfig(host: "h\($0).example", port: 443) }
        var owners = Array(repeating: 0, count: hosts.count)
        for index in 0..<3 {
            let shard = Shard(index: index, count: 3)!
            for (position, host) in hosts.enumerated() where shard.contains(host) { owners[position] += 1 }
        }
        XCTAssertTrue(owners.allSatisfy { $0 == 1 })
        // FNV-1a of a fixed text: the same on every machine and run.
        XCTAssertEqual(Shard.stableHash("a"), 0xaf63_dc4c_8601_ec8c)
        XCTAssertNil(Shard(parsing: "3/3"))
        XCTAssertNil(Shard(parsing: "-1/3"))
        XCTAssertNil(Shard(parsing: "1"))
        XCTAssertEqual(Shard(parsing: "2/3")?.description, "2/3")
    }

    func testProbeQueries() {
        func parse(_ items: [(String, String)]) -> Result<ProbeQuery, ProbeQueryError> {
            ProbeQuery.parse(items.map { (name: $0.0, value: $0.1) })
        }
        XCTAssertEqual(try parse([("target", "api.example.com:8443")]).get().target, try HostPort(parsing: "api.example.com:8443"))
        XCTAssertEqual(try parse([("target", "[::1]:443"), ("pinset", "le")]).get().pinset, "le")
        for bad in [
            [], [("target", "")], [("target", "a b")], [("target", "x:0")], [("target", "a\u{0}b")],
            [("target", "a"), ("target", "b")], [("other", "1")], [("target", String(repeating: "a", count: 300))],
        ] {
            XCTAssertThrowsError(try parse(bad).get(), "\(bad.map(\.0))")
        }
        let config = Config(
            pinsets: ["le": PinSet(ca: [F.spkiPin(3)])],
            hosts: [
                HostConfig(
                    host: "api.example.com", port: 8443, serverName: "sni.example", connectAddress: "10.0.0.1",
                    pins: PinSet(ca: [F.spkiPin(9)], leaf: [F.spkiPin(1)]))
            ])
        let configured = try? parse([("target", "API.example.com:8443"), ("pinset", "le")]).get().host(in: config).get()
        XCTAssertEqual(configured?.serverName, "sni.example", "the configured host's SNI and address are used")
        XCTAssertEqual(configured?.connectAddress, "10.0.0.1")
        // As docs/DECISIONS.md says, the named set replaces the host's pins (README: "or"),
        // so a leaf pin of the host cannot hide that the set misses.
        XCTAssertEqual(configured?.pins, PinSet(ca: [F.spkiPin(3)]))
        let own = try? parse([("target", "api.example.com:8443")]).get().host(in: config).get()
        XCTAssertEqual(own?.pins, PinSet(ca: [F.spkiPin(9)], leaf: [F.spkiPin(1)]), "without pinset, the host's own pins")
        XCTAssertThrowsError(try parse([("target", "x.example"), ("pinset", "nosuch")]).get().host(in: config).get())
    }

    func testHooksAndListenAndShardInTheConfiguration() throws {
        let directory = NSTemporaryDirectory()
        let loader = ConfigLoader { _ in [] }
        let config = try loader.load(
            yaml: """
                listen: 0.0.0.0:9715
                shard: 1/4
                hooks:
                  - [/usr/bin/logger, -t, pinwatch]
                  - {command: [notify-send, pinwatch], timeout: 3s}
                """, path: directory + "/p.yaml")
        XCTAssertEqual(config.listen, "0.0.0.0:9715")
        XCTAssertEqual(config.shard, Shard(index: 1, count: 4))
        XCTAssertEqual(
            config.hooks,
            [
                HookCommand(arguments: ["/usr/bin/logger", "-t", "pinwatch"]),
                HookCommand(arguments: ["notify-send", "pinwatch"], timeout: 3),
            ])
        let bad = """
            listen: nowhere
            shard: 4/4
            hooks:
              - "/bin/sh -c 'rm -rf /'"
              - {command: [/bin/true], timeout: 1h}
              - {cmd: [/bin/true]}
            """
        XCTAssertThrowsError(try loader.load(yaml: bad, path: directory + "/p.yaml")) { error in
            let keys = (error as? ConfigError)?.problems.map(\.key) ?? []
            XCTAssertEqual(keys, ["listen", "shard", "hooks[0]", "hooks[1].timeout", "hooks[2].command"], "\(error)")
        }
    }

    /// The first result after a restart is compared with what the history
    /// store recorded last: the same trouble is not news, a change is.
    func testAfterARestartTheRecordedSeverityIsThePreviousOne() throws {
        let blocked = F.report(F.host(ca: [F.spkiPin(50)]), F.result(chain: F.chain()))
        let ok = F.report(F.host(ca: [F.spkiPin(3)]), F.result(chain: F.chain()))
        XCTAssertEqual(blocked.severity, .critical)
        let recordedBlocked = HostHistory(previousStatus: .blocked, previousSeverity: .critical)
        XCTAssertNil(SeverityTransition.between(nil, blocked.with(history: recordedBlocked, now: F.now), at: F.now))
        let recovered = try XCTUnwrap(SeverityTransition.between(nil, ok.with(history: recordedBlocked, now: F.now), at: F.now))
        XCTAssertEqual(recovered.previous?.severity, .critical)
        XCTAssertEqual(recovered.previous?.status, .blocked)
        let recordedOK = HostHistory(previousStatus: .ok, previousSeverity: .ok)
        let broke = try XCTUnwrap(SeverityTransition.between(nil, blocked.with(history: recordedOK, now: F.now), at: F.now))
        XCTAssertEqual(broke.previous?.severity, .ok)
        XCTAssertNotNil(SeverityTransition.between(nil, blocked.with(history: HostHistory(), now: F.now), at: F.now), "never recorded")
    }

    /// leaf_only → ok while chain_changed holds the warning: a recovery
    /// all the same, and the next event starts from ok, not leaf_only.
    func testAStatusChangeWithinOneSeverityIsAnEvent() throws {
        let leafOnly = F.report(F.host(ca: [F.spkiPin(50)], leaf: [F.spkiPin(1)]), F.result(chain: F.chain()))
        XCTAssertEqual(leafOnly.status, .leafOnly)
        XCTAssertEqual(leafOnly.severity, .warning)
        let ok = F.report(F.host(ca: [F.spkiPin(3)]), F.result(chain: F.chain(intermediateKey: 7)))
        let changing = ok.with(history: HostHistory(latestChainChange: intermediateRotation(at: F.now)), now: F.now)
        XCTAssertEqual(changing.severity, .warning)
        let recovery = try XCTUnwrap(SeverityTransition.between(leafOnly, changing, at: F.now))
        let event = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(recovery.json.utf8)) as? [String: Any])
        XCTAssertEqual(event["event"] as? String, "status_changed")
        XCTAssertEqual((event["old"] as? [String: String])?["status"], "leaf_only")
        XCTAssertEqual((event["new"] as? [String: String])?["status"], "ok")
        let calm = try XCTUnwrap(SeverityTransition.between(changing, ok, at: F.now))
        XCTAssertEqual(calm.event, "severity_changed")
        XCTAssertEqual(calm.previous?.status, .ok)
        XCTAssertNil(SeverityTransition.between(ok, ok, at: F.now))
        let unpinned = F.report(F.host(), F.result(chain: F.chain()))
        XCTAssertNil(SeverityTransition.between(nil, unpinned, at: F.now), "a healthy first result, unpinned, is no event")
    }

    /// The history store's facts of an intermediate rotation at `date`.
    private func intermediateRotation(at date: Date) -> ChainChangeFacts {
        let observed = { (chain: [ChainCertificate]) in ObservedChain(F.report(F.host(), F.result(chain: chain)))! }
        return ChainChangeFacts(previous: observed(F.chain()), current: observed(F.chain(intermediateKey: 7)), at: date)
    }

    /// Each CA-level change counts once, however many cycles its warning
    /// holds; one recorded before a restart is not counted again.
    func testChainChangesAreCountedOncePerChangeFromStart() {
        let started = F.now
        var counter = ChainChangeCounter(started: started)
        let steadyHost = HostConfig(host: "steady.example.com", pins: PinSet(ca: [F.spkiPin(3)], leaf: []))
        let steady = F.report(steadyHost, F.result(chain: F.chain()))
        let base = F.report(F.host(ca: [F.spkiPin(3)]), F.result(chain: F.chain(intermediateKey: 7)))
        let changed = { (at: Date) in
            base.with(history: HostHistory(latestChainChange: self.intermediateRotation(at: at)), now: at)
        }
        counter.observe(changed(started.addingTimeInterval(-60)))
        XCTAssertEqual(counter.total(for: base.config), 0, "before this run")
        for _ in 0..<3 { counter.observe(changed(started.addingTimeInterval(60))) }
        XCTAssertEqual(counter.total(for: base.config), 1, "one change, three cycles")
        counter.observe(changed(started.addingTimeInterval(600)))
        counter.observe(steady)
        XCTAssertEqual(counter.total(for: base.config), 2)
        let text = counter.exposition([base, steady])
        XCTAssertTrue(text.contains("# TYPE pinwatch_chain_changes_total counter\n"), text)
        XCTAssertTrue(text.contains("pinwatch_chain_changes_total{host=\"\(base.config.host)\",port=\"443\"} 2\n"), text)
        XCTAssertTrue(text.contains("pinwatch_chain_changes_total{host=\"steady.example.com\",port=\"443\"} 0\n"), text)
    }

    func testTransitionEventsCarryNoProxyDetails() throws {
        let proxy = ProxyRoute(scheme: .http, host: "proxy", port: 3128, username: "ops", password: "S3cr3t", source: "https_proxy")
        let blocked = F.report(F.host(ca: [F.spkiPin(50)]), F.result(chain: F.chain(), proxy: proxy))
        let ok = F.report(F.host(ca: [F.spkiPin(3)]), F.result(chain: F.chain()))
        XCTAssertNil(SeverityTransition.between(nil, ok, at: F.now), "a healthy first result is no transition")
        XCTAssertNil(SeverityTransition.between(ok, ok, at: F.now))
        let transition = try XCTUnwrap(SeverityTransition.between(ok, blocked, at: F.now))
        let json = transition.json
        XCTAssertTrue(json.hasSuffix("\n"))
        XCTAssertEqual(json.filter { $0 == "\n" }.count, 1, "one line")
        XCTAssertFalse(json.contains("S3cr3t"))
        XCTAssertFalse(json.contains("ops"), "no user name either; the reason names the proxy without credentials")
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        XCTAssertEqual((object["old"] as? [String: String])?["severity"], "ok")
        XCTAssertEqual((object["new"] as? [String: String])?["severity"], "critical")
        XCTAssertEqual((object["pins"] as? [String])?.first, PinText.sha256(F.digest(1)))
    }
}
