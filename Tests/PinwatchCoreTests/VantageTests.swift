import Foundation
import XCTest

@testable import PinwatchCore

/// DESIGN §11: `vantage:` names the network an instance watches from; it
/// labels every host series, the build info and the JSON document, and the
/// reason series carries what a remote dashboard's row shows.
final class VantageTests: XCTestCase {
    private typealias F = Fixtures

    private func load(_ yaml: String) throws(ConfigError) -> Config {
        try ConfigLoader(certificateDigests: { _ in [] }).load(yaml: yaml, path: "/etc/pinwatch/pinwatch.yaml")
    }

    func testVantageIsReadAndValidatedLikeANameWithItsLine() throws {
        XCTAssertEqual(try load("vantage: eu-west.office_2\n").vantage, "eu-west.office_2")
        XCTAssertNil(try load("interval: 60s\n").vantage)
        for bad in ["\"eu west\"", "'a\"b'", "\"\"", "\"ü\"", String(repeating: "v", count: 65), "[a, b]"] {
            do {
                _ = try load("interval: 60s\nvantage: \(bad)\n")
                XCTFail("\(bad) was accepted")
            } catch {
                XCTAssertEqual(error.problems.count, 1, "\(bad): \(error.problems)")
                XCTAssertEqual(error.problems.first?.line, 2, bad)
                XCTAssertEqual(error.problems.first?.key, "vantage", bad)
            }
        }
    }

    func testEveryHostSeriesAndTheBuildInfoCarryTheVantage() {
        let host = HostConfig(host: "api.example.com", pins: PinSet(ca: [F.spkiPin(3)], leaf: [F.spkiPin(1)]))
        let report = F.report(host, F.result(chain: F.chain()))
        let cycle = PrometheusExposition.Cycle(finishedAt: F.now, duration: 1, completedCycles: 1, interval: 60)
        let text = PrometheusExposition.render([report], cycle: cycle, version: "1.0", vantage: "eu-office")
        let hostSamples = text.split(separator: "\n").filter { $0.contains("host=\"api.example.com\"") }
        XCTAssertGreaterThan(hostSamples.count, 6)
        for sample in hostSamples {
            XCTAssertTrue(sample.contains(",vantage=\"eu-office\""), String(sample))
        }
        XCTAssertTrue(text.contains("pinwatch_build_info{vantage=\"eu-office\",version=\"1.0\"} 1\n"), text)
        var counter = ChainChangeCounter(started: F.now)
        counter.observe(report)
        XCTAssertTrue(
            counter.exposition([report], vantage: "eu-office").contains(
                "pinwatch_chain_changes_total{host=\"api.example.com\",port=\"443\",vantage=\"eu-office\"} 0"))

        let plain = PrometheusExposition.render([report], cycle: cycle, version: "1.0")
        XCTAssertFalse(plain.contains("vantage"), "no vantage label without vantage:")
        XCTAssertTrue(plain.contains("pinwatch_build_info{version=\"1.0\"} 1\n"), plain)
    }

    /// One series per host with everything the fleet dashboard's row needs.
    func testTheReasonSeriesCarriesStatusSeverityHeadlineAndTiers() {
        let leafOnly = F.report(
            HostConfig(host: "api.example.com", pins: PinSet(ca: [F.spkiPin(50)], leaf: [F.spkiPin(1)])), F.result(chain: F.chain()))
        let text = PrometheusExposition.render([leafOnly], cycle: nil, version: "0", vantage: "dc1")
        let lines = text.split(separator: "\n").filter { $0.hasPrefix("pinwatch_host_reason_info{") }
        XCTAssertEqual(lines.count, 1)
        XCTAssertEqual(
            lines.first.map(String.init),
            "pinwatch_host_reason_info{host=\"api.example.com\",port=\"443\",vantage=\"dc1\",status=\"leaf_only\","
                + "severity=\"warning\",headline=\"leaf_only\",tiers=\"leaf\","
                + "reason=\"only the leaf pin still matches: breaks at the next leaf renewal (leaf expires 2027-03-16)\"} 1")
    }

    func testTheJSONDocumentCarriesTheVantageAtTopLevel() throws {
        let report = F.report(F.host(ca: [F.spkiPin(3)]), F.result(chain: F.chain()))
        for vantage in ["eu-office", nil] {
            let text = JSONReport.render([report], generatedAt: F.now, vantage: vantage)
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            if let vantage {
                XCTAssertEqual(object["vantage"] as? String, vantage)
            } else {
                XCTAssertTrue(object["vantage"] is NSNull, text)
            }
        }
    }
}
