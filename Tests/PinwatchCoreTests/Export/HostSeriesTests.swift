import Foundation
import XCTest

@testable import PinwatchCore

/// Prometheus keeps every series of every host: a host's verdict is one
/// value series and one info series, its chain one info series with each
/// tier's pin result (the CA levels written once per distinct chain), the
/// chain's earliest expiry one series; the families these replace are
/// exported only with `deprecated_series: true`.
final class HostSeriesTests: XCTestCase {
    private typealias F = Fixtures

    private static let cycle = PrometheusExposition.Cycle(finishedAt: F.now, duration: 1, completedCycles: 1, interval: 60)

    /// Samples that name a host.
    private static func hostSamples(_ text: String) -> [Substring] {
        text.split(separator: "\n").filter { !$0.hasPrefix("#") && $0.contains("host=\"") }
    }

    private static func load(_ yaml: String) throws(ConfigError) -> Config {
        try ConfigLoader(certificateDigests: { _ in [] }).load(yaml: yaml, path: "/etc/pinwatch/pinwatch.yaml")
    }

    func testAPinnedThreeLevelHostHasAtMostEightSeries() {
        let host = HostConfig(host: "api.example.com", pins: PinSet(ca: [F.spkiPin(3)], leaf: [F.spkiPin(1)]))
        let report = F.report(host, F.result(chain: F.chain()))
        let text = PrometheusExposition.render([report], cycle: Self.cycle, version: "0")
        XCTAssertLessThanOrEqual(Self.hostSamples(text).count, 8, text)
        let withDeprecated = PrometheusExposition.render([report], cycle: Self.cycle, version: "0", deprecatedSeries: true)
        XCTAssertGreaterThan(Self.hostSamples(withDeprecated).count, 20, withDeprecated)
    }

    func testTheSeverityCodeIsTheCodeCheckExitsWith() {
        let reports = [
            F.report(F.host(ca: [F.spkiPin(3)]), F.result(chain: F.chain())),
            F.report(F.host(ca: [F.spkiPin(50)], leaf: [F.spkiPin(1)]), F.result(chain: F.chain())),
            F.report(F.host(ca: [F.spkiPin(50)]), F.result(chain: F.chain())),
            F.report(F.host(ca: [F.spkiPin(3)]), .failed(ProbeFailure(kind: .timeout, message: "timed out"), elapsed: 0)),
        ]
        XCTAssertEqual(reports.map(\.severity), [.ok, .warning, .critical, .unknown])
        for (report, code) in zip(reports, [0, 1, 2, 3]) {
            let text = PrometheusExposition.render([report], cycle: nil, version: "0")
            let lines = text.split(separator: "\n").filter { $0.hasPrefix("pinwatch_host_severity_code{") }
            XCTAssertEqual(lines, ["pinwatch_host_severity_code{host=\"api.example.com\",port=\"443\"} \(code)"], text)
            XCTAssertEqual(Int(CheckState(report.severity).rawValue), code)
        }
        XCTAssertTrue(MetricFamily.of(.hostSeverityCode).help.contains("0 ok, 1 warning, 2 critical, 3 unknown"))
    }

    func testAHostsChainIsOneSeriesWithEachTiersPinResultAsAWord() {
        // A CA pin of the root: the intermediate is a CA level it does not
        // match, and the leaf's tier has no pin.
        let report = F.report(F.host(ca: [F.spkiPin(3)]), F.result(chain: F.chain()))
        let text = PrometheusExposition.render([report], cycle: nil, version: "0")
        let chain = MetricFamilyName.caChain(report.levels)
        XCTAssertEqual(chain.count, 16, chain)
        XCTAssertEqual(
            text.split(separator: "\n").filter { $0.hasPrefix("pinwatch_chain_info{") },
            [
                "pinwatch_chain_info{host=\"api.example.com\",port=\"443\",spki_sha256=\"\(PinText.base64(F.digest(1)))\","
                    + "subject=\"CN=api.example.com\",leaf_pin=\"\",ca_pin=\"match\",ca_pin_levels=\"2\",ca_chain=\"\(chain)\"} 1"
            ])
        XCTAssertEqual(
            text.split(separator: "\n").filter { $0.hasPrefix("pinwatch_ca_level_info{") },
            [
                "pinwatch_ca_level_info{ca_chain=\"\(chain)\",level=\"1\",role=\"intermediate\",spki_sha256=\"\(PinText.base64(F.digest(2)))\",subject=\"CN=R11\"} 1",
                "pinwatch_ca_level_info{ca_chain=\"\(chain)\",level=\"2\",role=\"root\",spki_sha256=\"\(PinText.base64(F.digest(3)))\",subject=\"CN=Root\"} 1",
            ])
        XCTAssertFalse(text.contains("pinwatch_chain_level_info"), text)
        XCTAssertFalse(text.contains("pinwatch_pin_match"), text)

        // No CA level matches a CA pin: mismatch, no level; a leaf pin that
        // matches; a chain of the leaf alone names no CA levels.
        let missed = F.report(F.host(ca: [F.spkiPin(50)], leaf: [F.spkiPin(1)]), F.result(chain: F.chain()))
        let alone = F.report(F.host(), F.result(chain: [F.chain()[0]]))
        let other = PrometheusExposition.render([missed, alone], cycle: nil, version: "0")
        let lines = other.split(separator: "\n").filter { $0.hasPrefix("pinwatch_chain_info{") }
        XCTAssertEqual(lines.count, 2, other)
        XCTAssertTrue(
            lines[0].hasSuffix("leaf_pin=\"match\",ca_pin=\"mismatch\",ca_pin_levels=\"\",ca_chain=\"\(chain)\"} 1"), String(lines[0]))
        XCTAssertTrue(lines[1].hasSuffix("leaf_pin=\"\",ca_pin=\"\",ca_pin_levels=\"\",ca_chain=\"\"} 1"), String(lines[1]))
        XCTAssertEqual(other.split(separator: "\n").filter { $0.hasPrefix("pinwatch_ca_level_info{") }.count, 2, other)
    }

    /// Hosts under the same CA certificates share one set of
    /// `pinwatch_ca_level_info` series, with no host label; another chain
    /// has its own. Subjects there are escaped like every label value.
    func testCALevelsAreWrittenOncePerDistinctChain() {
        var otherChain = F.chain(intermediateKey: 9)
        otherChain[1].facts.subject = "CN=\"Other\" CA"
        let reports =
            (0..<5).map { index in
                F.report(HostConfig(host: "h\(index).test", pins: PinSet(ca: [F.spkiPin(3)])), F.result(chain: F.chain()))
            } + [F.report(HostConfig(host: "z.test", pins: PinSet(ca: [F.spkiPin(9)])), F.result(chain: otherChain))]
        let text = PrometheusExposition.render(reports, cycle: nil, version: "0")
        let shared = MetricFamilyName.caChain(reports[0].levels)
        let own = MetricFamilyName.caChain(reports[5].levels)
        XCTAssertNotEqual(shared, own)
        XCTAssertEqual(MetricFamilyName.caChain(reports[4].levels), shared, "the same certificates, the same name")
        let levels = text.split(separator: "\n").filter { $0.hasPrefix("pinwatch_ca_level_info{") }
        XCTAssertEqual(levels.count, 4, text)
        XCTAssertEqual(levels.filter { $0.contains("ca_chain=\"\(shared)\"") }.count, 2, text)
        XCTAssertTrue(
            levels.contains {
                $0.contains(#"ca_chain="\#(own)",level="1",role="intermediate""#) && $0.contains(#"subject="CN=\"Other\" CA""#)
            }, text)
        XCTAssertFalse(levels.contains { $0.contains("host=") }, text)
        let chains = text.split(separator: "\n").filter { $0.hasPrefix("pinwatch_chain_info{") }
        XCTAssertEqual(chains.count, 6, text)
        XCTAssertTrue(chains[5].hasSuffix("ca_pin=\"match\",ca_pin_levels=\"1\",ca_chain=\"\(own)\"} 1"), String(chains[5]))
        // With the switch the deprecated per-level series come back too,
        // in their old shape.
        let deprecated = PrometheusExposition.render(reports, cycle: nil, version: "0", deprecatedSeries: true)
        let old = deprecated.split(separator: "\n").filter { $0.hasPrefix("pinwatch_chain_level_info{host=\"z.test\"") }
        XCTAssertEqual(old.count, 3, deprecated)
        XCTAssertTrue(old[1].hasSuffix(#"subject="CN=\"Other\" CA",pin="match",tier="ca"} 1"#), String(old[1]))
    }

    func testTheChainsEarliestExpiryIsOneSeriesNamingItsLevel() {
        var chain = F.chain(leafDaysLeft: 60)
        chain[1] = F.certificate("CN=R11", key: 2, daysLeft: 10, issuer: "CN=Root")
        let report = F.report(F.host(ca: [F.spkiPin(3)]), F.result(chain: chain))
        let text = PrometheusExposition.render([report], cycle: nil, version: "0")
        let expiry = Int(chain[1].facts.notAfter.timeIntervalSince1970)
        XCTAssertEqual(
            text.split(separator: "\n").filter { $0.hasPrefix("pinwatch_chain_not_after_timestamp_seconds{") },
            [
                "pinwatch_chain_not_after_timestamp_seconds{host=\"api.example.com\",port=\"443\",level=\"1\",role=\"intermediate\"} \(expiry)"
            ])
        XCTAssertTrue(text.contains("pinwatch_leaf_not_after_timestamp_seconds{host=\"api.example.com\",port=\"443\"} "), text)
        XCTAssertFalse(text.contains("pinwatch_chain_level_not_"), text)
    }

    func testDeprecatedFamiliesComeOnlyWithTheSwitchAndSaySo() {
        let deprecated = MetricFamily.all.filter { $0.absence == .withoutDeprecatedSeries }
        XCTAssertEqual(
            Set(deprecated.map(\.name)),
            [.hostStatus, .hostSeverity, .chainLevelNotAfter, .chainLevelNotBefore, .chainLevelInfo, .pinMatch])
        let report = F.report(F.host(ca: [F.spkiPin(3)], leaf: [F.spkiPin(1)]), F.result(chain: F.chain()))
        let off = PrometheusExposition.render([report], cycle: Self.cycle, version: "0")
        let on = PrometheusExposition.render([report], cycle: Self.cycle, version: "0", deprecatedSeries: true)
        for family in deprecated {
            let name = family.name.rawValue
            XCTAssertTrue(family.help.hasPrefix("Deprecated, removed in the next release: "), name)
            XCTAssertFalse(off.contains("\n\(name){") || off.contains("# TYPE \(name) "), name)
            XCTAssertTrue(on.contains("# HELP \(name) Deprecated, removed in the next release: "), name)
            XCTAssertTrue(on.contains("\n\(name){host=\"api.example.com\""), name)
        }
        // Deprecated, they keep their old shape: one series per status.
        let statuses = on.split(separator: "\n").filter { $0.hasPrefix("pinwatch_host_status{") }
        XCTAssertEqual(statuses.count, HostStatus.allCases.count)
        XCTAssertEqual(statuses.filter { $0.hasSuffix("status=\"ok\"} 1") }.count, 1)
        // The two deprecated a release ago are gone, switch or not.
        for removed in ["pinwatch_leaf_not_after_seconds", "pinwatch_probe_errors"] {
            XCTAssertFalse(on.contains("\n\(removed){") || on.contains("\n\(removed) ") || on.contains("# TYPE \(removed) "), removed)
            XCTAssertNil(MetricFamilyName(rawValue: removed), removed)
        }
        let probe = String(decoding: PrometheusExposition.probeAnswer(report, version: "0", vantage: nil), as: UTF8.self)
        XCTAssertFalse(probe.contains("pinwatch_host_status"), probe)
        let probeWith = String(
            decoding: PrometheusExposition.probeAnswer(report, version: "0", vantage: nil, deprecatedSeries: true), as: UTF8.self)
        XCTAssertTrue(probeWith.contains("\npinwatch_host_status{"), probeWith)
    }

    /// A label value that changes starts a series: a day later, every
    /// host of every verdict that counts days keeps the same series.
    func testNoLabelValueChangesFromOneDayToTheNext() {
        let hosts = [
            (F.host(ca: [F.spkiPin(3)]), F.chain(leafDaysLeft: 12)),
            (F.host(ca: [F.spkiPin(3)]), F.chain(leafDaysLeft: 4)),
            (F.host(ca: [F.spkiPin(50)], leaf: [F.spkiPin(1)]), F.chain(leafDaysLeft: 40)),
            (F.host(ca: [F.spkiPin(3)]), F.chain(leafDaysLeft: -2)),
        ]
        func series(at now: Date) -> Set<String> {
            let reports = hosts.map { host, chain in
                Verdict.report(for: host, result: F.result(chain: chain), now: now, warnDays: 21, criticalDays: 7)
            }
            let text = PrometheusExposition.render(reports, cycle: nil, version: "0", deprecatedSeries: true)
            return Set(
                text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
                    String(line[..<(line.lastIndex(of: " ") ?? line.endIndex)])
                })
        }
        XCTAssertEqual(series(at: F.now), series(at: F.now.addingTimeInterval(F.day)))
    }

    func testDeprecatedSeriesIsReadAsABooleanWithItsLine() throws {
        XCTAssertTrue(try Self.load("deprecated_series: true\n").deprecatedSeries)
        XCTAssertFalse(try Self.load("deprecated_series: false\n").deprecatedSeries)
        XCTAssertFalse(try Self.load("interval: 60s\n").deprecatedSeries)
        do {
            _ = try Self.load("interval: 60s\ndeprecated_series: sometimes\n")
            XCTFail("sometimes was accepted")
        } catch {
            XCTAssertEqual(error.problems.count, 1, "\(error.problems)")
            XCTAssertEqual(error.problems.first?.line, 2)
            XCTAssertEqual(error.problems.first?.key, "deprecated_series")
            XCTAssertTrue(error.description.contains("expected true or false"), error.description)
        }
        do {
            _ = try Self.load("deprecated_serie: true\n")
            XCTFail("a misspelt key was accepted")
        } catch {
            XCTAssertTrue(error.description.contains("did you mean deprecated_series?"), error.description)
        }
    }
}
