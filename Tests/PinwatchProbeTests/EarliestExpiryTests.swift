import Foundation
import PinwatchCore
import PinwatchLocalWorld
import PinwatchProbe
import PinwatchTestSupport
import XCTest

/// DESIGN §5, days left: a pinned client fails when any certificate of the
/// verified chain expires, so an intermediate that ends before the leaf is
/// the expiry every output reports, named by its level.
final class EarliestExpiryTests: XCTestCase {
    private let day: TimeInterval = 86_400
    private var servers: [AnyObject] = []

    override func tearDown() {
        servers.removeAll()
    }

    /// Root → intermediate ending in 9.5 days → leaf ending in 60 days,
    /// served on 127.0.0.1 and probed; the verdict is taken at `issuedAt`
    /// and again 10 days later, with the clock as a parameter.
    private func probeShortLivedIntermediate(issuedAt: Date) throws -> (result: ProbeResult, host: HostConfig) {
        let root = try CertificateAuthority.makeRoot(commonName: "Expiry Test Root", validity: .lasting(days: 3650, from: issuedAt))
        let intermediate = try root.issueIntermediate(
            commonName: "Expiry Test Short CA", validity: .ending(inDays: 9.5, issuedDaysAgo: 300, now: issuedAt))
        let leaf = try intermediate.issueLeaf(
            commonName: "api.test", dnsNames: ["api.test"], validity: .ending(inDays: 60, issuedDaysAgo: 30, now: issuedAt))
        let server = try LocalTLSServer(identity: Identity(leaf: leaf, intermediates: [intermediate.certificate]))
        servers.append(server)
        let target = ProbeTarget(
            host: "api.test", port: server.port, serverName: "api.test", connectAddress: server.host,
            trust: .pem(root.certificate.pem), timeout: 5)
        let results = ProbeEngine(concurrency: 1).run([target])
        XCTAssertEqual(results.count, 1)
        let result = try XCTUnwrap(results.first)
        XCTAssertNil(result.failure)
        XCTAssertTrue(result.trusted, result.trustError ?? "")
        let rootPin = PinText.sha256(root.certificate.facts.spkiSHA256)
        let pin = Pin(kind: .spki, digest: root.certificate.facts.spkiSHA256, text: rootPin)
        return (result, HostConfig(host: "api.test", port: server.port, pins: PinSet(ca: [pin])))
    }

    func testIntermediateExpiringBeforeTheLeafDecidesTheVerdict() throws {
        let issuedAt = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        let (result, host) = try probeShortLivedIntermediate(issuedAt: issuedAt)
        let report = Verdict.report(for: host, result: result, now: issuedAt, warnDays: 21, criticalDays: 7)

        XCTAssertEqual(report.status, .ok, "the root pin matches")
        XCTAssertEqual(report.leafDaysLeft, 60, "the leaf's own figure is kept")
        XCTAssertEqual(report.daysLeft, 9)
        XCTAssertEqual(report.earliestExpiry?.level, 1)
        XCTAssertEqual(report.earliestExpiry?.role, .intermediate)
        XCTAssertEqual(report.alerts, [.expiring])
        XCTAssertEqual(report.severity, .warning)
        XCTAssertEqual(report.reason, "the intermediate CN=Expiry Test Short CA expires in 9 days")

        let check = CheckReport.render([report], warnDays: 21, criticalDays: 7)
        XCTAssertEqual(check.exitCode, 1, check.text)
        XCTAssertTrue(check.text.contains("'api.test:\(host.port)_days'=9;21:;7:"), check.text)
        XCTAssertTrue(check.text.contains("; intermediate CN=Expiry Test Short CA expires in 9 days"), check.text)

        let json = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(JSONReport.renderHost(report).utf8)) as? [String: Any])
        XCTAssertEqual(json["days_left"] as? Int, 9)
        XCTAssertEqual(json["leaf_days_left"] as? Int, 60)
        XCTAssertEqual(json["earliest_level"] as? Int, 1)
        XCTAssertEqual(json["earliest_not_after"] as? String, DateText.iso8601(issuedAt.addingTimeInterval(9.5 * day)))

        let metrics = PrometheusExposition.render([report], cycle: nil, version: "test")
        let labels = "host=\"api.test\",port=\"\(host.port)\""
        let leafExpiry = Int(issuedAt.addingTimeInterval(60 * day).timeIntervalSince1970)
        let intermediateExpiry = Int(issuedAt.addingTimeInterval(9.5 * day).timeIntervalSince1970)
        XCTAssertTrue(metrics.contains("pinwatch_leaf_not_after_timestamp_seconds{\(labels)} \(leafExpiry)\n"), metrics)
        XCTAssertFalse(metrics.contains("pinwatch_leaf_not_after_seconds"), "removed after its release as deprecated")
        XCTAssertTrue(
            metrics.contains(
                "pinwatch_chain_not_after_timestamp_seconds{\(labels),level=\"1\",role=\"intermediate\"} \(intermediateExpiry)\n"),
            metrics)
        // Each level's date only with deprecated_series: true.
        XCTAssertFalse(metrics.contains("pinwatch_chain_level_not_after_timestamp_seconds{"), metrics)
        let deprecated = PrometheusExposition.render([report], cycle: nil, version: "test", deprecatedSeries: true)
        XCTAssertTrue(deprecated.contains("pinwatch_chain_level_not_after_timestamp_seconds{\(labels),level=\"0\",role=\"leaf\"} "))
        XCTAssertTrue(deprecated.contains("pinwatch_chain_level_not_after_timestamp_seconds{\(labels),level=\"2\",role=\"root\"} "))
    }

    /// Ten days on, the intermediate has expired while the leaf has 50
    /// days left: critical, and the reason names the intermediate.
    func testExpiredIntermediateIsExpiredEvenWithAValidLeaf() throws {
        let issuedAt = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        let (result, host) = try probeShortLivedIntermediate(issuedAt: issuedAt)
        let later = issuedAt.addingTimeInterval(10 * day)
        let report = Verdict.report(for: host, result: result, now: later, warnDays: 21, criticalDays: 7)

        XCTAssertEqual(report.leafDaysLeft, 50)
        XCTAssertEqual(report.daysLeft, -1)
        XCTAssertEqual(report.alerts, [.expired])
        XCTAssertEqual(report.severity, .critical)
        XCTAssertEqual(report.reason, "the intermediate CN=Expiry Test Short CA expired 1 day ago")
        XCTAssertEqual(CheckReport.render([report]).exitCode, 2)
    }
}
