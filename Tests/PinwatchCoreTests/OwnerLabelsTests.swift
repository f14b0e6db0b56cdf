import Foundation
import PinwatchSystem
import XCTest

@testable import PinwatchCore

/// `labels:` and `runbook:` per host or pin set (docs/CONFIGURATION.md, "Owners and
/// runbooks"): parsed and validated, inherited, and carried into the
/// metrics, the snapshot JSON and the hook JSON.
final class OwnerLabelsTests: XCTestCase {
    private typealias F = Fixtures
    private let path = "/etc/pinwatch/pinwatch.yaml"

    private func load(_ yaml: String) throws(ConfigError) -> Config {
        try ConfigLoader(certificateDigests: { _ in [] }).load(yaml: yaml, path: path)
    }

    private func problems(_ yaml: String, file: StaticString = #filePath, line: UInt = #line) -> [ConfigProblem] {
        ConfigLoader(certificateDigests: { _ in [] }).problems(ofYAML: yaml, path: path, file: file, line: line)
    }

    func testHostInheritsItsPinSetsLabelsAndOverridesThemKeyByKey() throws {
        let config = try load(
            """
            pinsets:
              payments:
                ca: [sha256/C5+lpZ7tcVwmwQIMcRtPbsQtWLABXhQzejna0wHFr8M=]
                labels: {team: payments, env: prod}
                runbook: https://wiki.example.com/runbooks/payments
            hosts:
              - host: pay.example.com
                pinset: payments
              - host: pay-staging.example.com
                pinset: payments
                labels: {env: staging, region: eu}
                runbook: http://wiki.example.com/staging
              - host: bare.example.com
            """)
        XCTAssertEqual(config.hosts[0].labels, ["team": "payments", "env": "prod"])
        XCTAssertEqual(config.hosts[0].runbook, "https://wiki.example.com/runbooks/payments")
        XCTAssertEqual(config.hosts[1].labels, ["team": "payments", "env": "staging", "region": "eu"])
        XCTAssertEqual(config.hosts[1].runbook, "http://wiki.example.com/staging")
        XCTAssertEqual(config.hosts[2].labels, [:])
        XCTAssertNil(config.hosts[2].runbook)
        XCTAssertEqual(config.pinsets["payments"]?.ca.count, 1, "labels and runbook are not pins")
    }

    func testBadNamesValuesAndURLsAreProblemsNamingLineAndKey() {
        let found = problems(
            """
            hosts:
              - host: a.example.com
                labels:
                  team-name: x
                  host: y
                  __meta: z
                  9lives: w
                  env: [prod]
              - host: b.example.com
                runbook: ftp://files.example.com/runbook
              - host: c.example.com
                runbook: wiki/runbook
              - host: d.example.com
                labels: {team: "\(String(repeating: "x", count: 129))"}
              - host: e.example.com
                lables: {team: x}
            """)
        let byKey = Dictionary(found.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        XCTAssertEqual(byKey["hosts[0].labels.team-name"]?.line, 4)
        XCTAssertTrue(byKey["hosts[0].labels.team-name"]?.message.contains("not a Prometheus label name") == true, "\(found)")
        XCTAssertTrue(byKey["hosts[0].labels.host"]?.message.contains("a label pinwatch sets itself") == true, "\(found)")
        XCTAssertTrue(byKey["hosts[0].labels.__meta"]?.message.contains("reserved for Prometheus") == true, "\(found)")
        XCTAssertNotNil(byKey["hosts[0].labels.9lives"], "\(found)")
        XCTAssertTrue(byKey["hosts[0].labels.env"]?.message.contains("expected a string") == true, "\(found)")
        XCTAssertEqual(byKey["hosts[1].runbook"]?.line, 10)
        XCTAssertTrue(byKey["hosts[1].runbook"]?.message.contains("not an http(s) URL") == true, "\(found)")
        XCTAssertNotNil(byKey["hosts[2].runbook"], "\(found)")
        XCTAssertTrue(byKey["hosts[3].labels.team"]?.message.contains("at most 128 characters") == true, "\(found)")
        XCTAssertTrue(byKey["hosts[4].lables"]?.message.contains("did you mean labels?") == true, "\(found)")
        XCTAssertEqual(found.count, 9, "\(found)")
    }

    func testPinSetLabelsAreValidatedAndControlCharactersRefused() {
        let found = problems(
            """
            pinsets:
              web:
                labels: {team: "pay\\u001b[31mments"}
                runbook: "https://wiki.example.com/a b"
                lables: {}
            """)
        XCTAssertEqual(found.map(\.key), ["pinsets.web.labels.team", "pinsets.web.runbook", "pinsets.web.lables"], "\(found)")
        XCTAssertTrue(found[0].message.contains("control character"), "\(found)")
        XCTAssertFalse(found[0].description.contains("\u{1B}"), "echoed without the escape")
        XCTAssertTrue(found[2].message.contains("did you mean labels?"), "\(found)")
    }

    private func labelledReport(_ name: String, labels: [String: String], runbook: String?) -> HostReport {
        var host = HostConfig(host: name, pins: PinSet(ca: [F.spkiPin(3)]))
        host.labels = labels
        host.runbook = runbook
        return F.report(host, F.result(chain: F.chain()))
    }

    /// One info series per host, every series with the same label names.
    func testExpositionHasOneLabelsSeriesPerHostWithTheUnionOfNames() {
        let reports = [
            labelledReport("a.example.com", labels: ["team": "pay\"ments", "env": "prod"], runbook: "https://wiki.example.com/a"),
            labelledReport("b.example.com", labels: ["owner": "bob"], runbook: nil),
            labelledReport("c.example.com", labels: [:], runbook: nil),
        ]
        let text = PrometheusExposition.render(reports, cycle: nil, version: "0")
        let series = text.split(separator: "\n").filter { $0.hasPrefix("pinwatch_host_labels{") }
        XCTAssertEqual(
            series,
            [
                #"pinwatch_host_labels{host="a.example.com",port="443",env="prod",owner="",team="pay\"ments",runbook="https://wiki.example.com/a"} 1"#,
                #"pinwatch_host_labels{host="b.example.com",port="443",env="",owner="bob",team="",runbook=""} 1"#,
                #"pinwatch_host_labels{host="c.example.com",port="443",env="",owner="",team="",runbook=""} 1"#,
            ])
        XCTAssertEqual(text.components(separatedBy: "# TYPE pinwatch_host_labels gauge").count, 2)
    }

    func testSnapshotAndHookJSONCarryLabelsAndRunbook() throws {
        let report = labelledReport("a.example.com", labels: ["team": "payments", "env": "prod"], runbook: "https://wiki.example.com/a")
        let host = try JSONSerialization.jsonObject(with: Data(JSONReport.renderHost(report).utf8)) as? [String: Any]
        XCTAssertEqual(host?["labels"] as? [String: String], ["team": "payments", "env": "prod"])
        XCTAssertEqual(host?["runbook"] as? String, "https://wiki.example.com/a")

        let bare = labelledReport("b.example.com", labels: [:], runbook: nil)
        let bareHost = try JSONSerialization.jsonObject(with: Data(JSONReport.renderHost(bare).utf8)) as? [String: Any]
        XCTAssertEqual(bareHost?["labels"] as? [String: String], [:])
        XCTAssertTrue(bareHost?["runbook"] is NSNull, "every host carries every field")

        let hook = SeverityTransition(previous: (.ok, .ok), report: report, time: F.now)
        let event = try JSONSerialization.jsonObject(with: Data(hook.json.utf8)) as? [String: Any]
        XCTAssertEqual(event?["labels"] as? [String: String], ["team": "payments", "env": "prod"])
        XCTAssertEqual(event?["runbook"] as? String, "https://wiki.example.com/a")
    }
}
