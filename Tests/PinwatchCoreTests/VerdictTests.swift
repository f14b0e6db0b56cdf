import XCTest

@testable import PinwatchCore

/// DESIGN §5 as a truth table over the seed's scenarios.
final class VerdictTests: XCTestCase {
    private typealias F = Fixtures

    private struct Row {
        var name: String
        var host: HostConfig
        var result: ProbeResult
        var status: HostStatus
        var tiers: [PinTier]
        var alerts: [HostAlert]
    }

    func testTruthTable() {
        let rows: [Row] = [
            Row(
                name: "90-day leaf renewal with a new key: CA tier still matches",
                host: F.host(ca: [F.spkiPin(3)], leaf: [F.spkiPin(1)]), result: F.result(chain: F.chain(leafKey: 9)),
                status: .ok, tiers: [.ca], alerts: []),
            Row(
                name: "both tiers match",
                host: F.host(ca: [F.spkiPin(3)], leaf: [F.spkiPin(1)]), result: F.result(chain: F.chain()),
                status: .ok, tiers: [.ca, .leaf], alerts: []),
            Row(
                name: "intermediate rotation, root pin still matches",
                host: F.host(ca: [F.spkiPin(2), F.spkiPin(3)]), result: F.result(chain: F.chain(intermediateKey: 8)),
                status: .ok, tiers: [.ca], alerts: []),
            Row(
                name: "intermediate rotation, only the leaf pin matches",
                host: F.host(ca: [F.spkiPin(2)], leaf: [F.spkiPin(1)]), result: F.result(chain: F.chain(intermediateKey: 8)),
                status: .leafOnly, tiers: [.leaf], alerts: [.leafOnly]),
            Row(
                name: "leaf pins only (empty CA tier)",
                host: F.host(leaf: [F.spkiPin(1)]), result: F.result(chain: F.chain()),
                status: .leafOnly, tiers: [.leaf], alerts: [.leafOnly]),
            Row(
                name: "CA provider change",
                host: F.host(ca: [F.spkiPin(2), F.spkiPin(3)], leaf: [F.spkiPin(1)]),
                result: F.result(chain: F.chain(leafKey: 11, intermediateKey: 12, rootKey: 13)),
                status: .blocked, tiers: [], alerts: [.noMatch]),
            Row(
                name: "untrusted chain with a matching pin",
                host: F.host(ca: [F.spkiPin(3)]), result: F.result(chain: F.chain(), trusted: false),
                status: .blocked, tiers: [.ca], alerts: [.untrusted]),
            Row(
                name: "unpinned",
                host: F.host(), result: F.result(chain: F.chain()),
                status: .unpinned, tiers: [], alerts: []),
            Row(
                name: "unpinned and untrusted stays unpinned",
                host: F.host(), result: F.result(chain: F.chain(), trusted: false),
                status: .unpinned, tiers: [], alerts: [.untrusted]),
            Row(
                name: "error beats everything",
                host: F.host(ca: [F.spkiPin(3)]),
                result: .failed(ProbeFailure(kind: .timeout, message: "timed out after 5s"), elapsed: 5),
                status: .error, tiers: [], alerts: [.probeError]),
            Row(
                name: "a CA-tier pin matching the leaf counts as the CA tier",
                host: F.host(ca: [F.spkiPin(1)]), result: F.result(chain: F.chain()),
                status: .ok, tiers: [.ca], alerts: []),
        ]
        for row in rows {
            let report = F.report(row.host, row.result)
            XCTAssertEqual(report.status, row.status, row.name)
            XCTAssertEqual(report.matchedTiers, row.tiers, row.name)
            XCTAssertEqual(report.alerts, row.alerts, row.name)
        }
    }

    func testMatchesArePerLevelWithTheirTierAndPin() {
        let keyPin = Pin(kind: .key, digest: F.digest(102), text: "key:intermediate")
        let certPin = Pin(kind: .cert, digest: F.digest(201), text: "cert:leaf")
        let report = F.report(F.host(ca: [keyPin], leaf: [certPin]), F.result(chain: F.chain()))
        XCTAssertEqual(report.levels.map(\.role), [.leaf, .intermediate, .root])
        XCTAssertEqual(report.levels[0].matches, [PinMatch(tier: .leaf, pin: certPin)])
        XCTAssertEqual(report.levels[1].matches, [PinMatch(tier: .ca, pin: keyPin)])
        XCTAssertEqual(report.levels[2].matches, [])
        // A key digest never matches as an SPKI digest of the same bytes.
        let wrongKind = Pin(kind: .spki, digest: F.digest(102), text: "spki:wrong-kind")
        XCTAssertEqual(F.report(F.host(ca: [wrongKind]), F.result(chain: F.chain())).status, .blocked)
    }

    func testExpiryThresholdsAtTheBoundaries() {
        let host = F.host(ca: [F.spkiPin(3)])
        let cases: [(Double, Int, [HostAlert])] = [
            (22.5, 22, []),
            (21.5, 21, [.expiring]),
            (7.9, 7, [.expiring, .criticalExpiry]),
            (0.5, 0, [.expiring, .criticalExpiry]),
            (-0.1, -1, [.expired]),
            (-30, -30, [.expired]),
        ]
        for (days, expectedDays, alerts) in cases {
            let report = F.report(host, F.result(chain: F.chain(leafDaysLeft: days)))
            XCTAssertEqual(report.leafDaysLeft, expectedDays, "\(days)")
            XCTAssertEqual(report.alerts, alerts, "\(days)")
            XCTAssertEqual(report.status, .ok, "expiry does not change status")
        }
    }

    func testSingleSelfSignedCertificateIsOneLeafLevel() {
        let chain = [F.certificate("CN=self", key: 5, issuer: "CN=self")]
        let report = F.report(F.host(leaf: [F.spkiPin(5)]), F.result(chain: chain, trusted: false))
        XCTAssertEqual(report.levels.map(\.role), [.leaf])
        XCTAssertEqual(report.status, .blocked)
        XCTAssertEqual(report.alerts, [.untrusted])
    }

    func testProxyAddsAlertsButNotStatus() {
        let route = ProxyRoute(scheme: .http, host: "proxy.local", port: 3128, username: "u", password: "secret", source: "https_proxy")
        let clean = F.report(F.host(ca: [F.spkiPin(3)]), F.result(chain: F.chain(), proxy: route))
        XCTAssertEqual(clean.status, .ok)
        XCTAssertEqual(clean.alerts, [.proxy])
        XCTAssertEqual(clean.proxy, ProxyReport(detected: true, source: "https_proxy", url: "http://proxy.local:3128", intercepted: false))

        // A trusted chain no pin matches: an honest tunnel shows as much of
        // a server whose pins are wrong, so it is not called interception.
        let unpinned = F.report(F.host(ca: [F.spkiPin(3)]), F.result(chain: F.chain(rootKey: 66), proxy: route))
        XCTAssertEqual(unpinned.status, .blocked)
        XCTAssertEqual(unpinned.alerts, [.noMatch, .proxy])
        XCTAssertFalse(unpinned.proxy.intercepted)

        let inspected = F.report(F.host(ca: [F.spkiPin(3)]), F.result(chain: F.chain(rootKey: 66), trusted: false, proxy: route))
        XCTAssertEqual(inspected.status, .blocked)
        XCTAssertEqual(inspected.alerts, [.noMatch, .untrusted, .proxy, .intercepted])
        XCTAssertTrue(inspected.proxy.intercepted)

        let failed = F.report(F.host(), .failed(ProbeFailure(kind: .proxy, message: "CONNECT 403"), elapsed: 1, proxy: route))
        XCTAssertEqual(failed.alerts, [.proxy, .probeError])
        XCTAssertFalse(failed.proxy.intercepted)
    }

    func testStatusSummaryCounts() {
        let reports = [
            F.report(F.host(ca: [F.spkiPin(3)]), F.result(chain: F.chain())),
            F.report(F.host(ca: [F.spkiPin(3)]), F.result(chain: F.chain())),
            F.report(F.host(leaf: [F.spkiPin(1)]), F.result(chain: F.chain())),
            F.report(F.host(), F.result(chain: F.chain())),
        ]
        let summary = StatusSummary(reports)
        XCTAssertEqual([summary.ok, summary.leafOnly, summary.blocked, summary.error, summary.unpinned], [2, 1, 0, 0, 1])
    }
}
