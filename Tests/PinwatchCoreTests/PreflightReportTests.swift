import Foundation
import XCTest

@testable import PinwatchCore

/// `preflight`'s decision per pinned client, on reports made by `Verdict`
/// (Fixtures: leaf key 1, intermediate key 2, root key 3).
final class PreflightReportTests: XCTestCase {
    private typealias F = Fixtures

    private func client(_ name: String, pins: [Pin], enforced: Bool, chain: [ChainCertificate]) -> ClientHostVerdict {
        let report = F.report(HostConfig(host: "api.example.com", pins: PinSet(auto: pins)), F.result(chain: chain))
        return ClientHostVerdict(client: name, format: .trustkit, report: report, rules: [], enforced: enforced, pinsExpire: nil)
    }

    private func preflight(own: HostReport, clients: [ClientHostVerdict]) -> PreflightReport {
        var combined = own
        combined.clients = clients
        return PreflightReport(report: combined, own: own, configured: true, source: "next.pem")
    }

    func testAReportOnlyReleaseThatWouldRefuseOnlyWarns() {
        let chain = F.chain(intermediateKey: 7)
        let own = F.report(F.host(ca: [F.spkiPin(3)]), F.result(chain: chain))
        let reportOnly = client("ios 6.0", pins: [F.spkiPin(2)], enforced: false, chain: chain)
        let report = preflight(own: own, clients: [reportOnly])
        XCTAssertEqual(reportOnly.report.status, .blocked, "its pin is on the old intermediate")
        XCTAssertEqual(report.outcome, .warns, "a rule that only reports lets the connection through")
        XCTAssertEqual(report.exitCode, 1)
        XCTAssertEqual(report.warning, ["ios 6.0"])

        let enforcing = client("ios 6.1", pins: [F.spkiPin(2)], enforced: true, chain: chain)
        let refused = preflight(own: own, clients: [reportOnly, enforcing])
        XCTAssertEqual(refused.exitCode, 2)
        XCTAssertEqual(refused.breaking, ["ios 6.1"])
        XCTAssertTrue(refused.text.hasSuffix("\nBREAKS ios 6.1: deploying this chain breaks it\n"), refused.text)
    }

    func testLeafOnlyIsAWarningNotARefusal() {
        let own = F.report(F.host(ca: [F.spkiPin(50)], leaf: [F.spkiPin(1)]), F.result(chain: F.chain()))
        XCTAssertEqual(own.status, .leafOnly)
        let report = preflight(own: own, clients: [])
        XCTAssertEqual(report.outcome, .warns)
        XCTAssertEqual(report.warning, ["configured pins"])
    }

    func testWithNoPinnedClientOnlyTrustDecides() {
        let unpinned = F.report(F.host(), F.result(chain: F.chain()))
        XCTAssertEqual(preflight(own: unpinned, clients: []).exitCode, 0)
        let untrusted = F.report(F.host(), F.result(chain: F.chain(), trusted: false))
        let refused = preflight(own: untrusted, clients: [])
        XCTAssertEqual(refused.exitCode, 2, "every TLS client refuses an untrusted chain")
        XCTAssertTrue(refused.conclusion.hasPrefix("REFUSED: every TLS client refuses this chain (NOT trusted"), refused.conclusion)
    }
}

/// Each next-chain section of `preflight` says whose pins it judges, so a
/// release that survives is not shown another's breaks.
final class PreflightNextChainLabelTests: XCTestCase {
    private typealias C = CatalogueFixtures

    func testEachPinnedClientsNextChainsAreLabelledWithItsOwnVerdicts() throws {
        let catalogue = CatalogueFixtures.Knowledge.knownPool.catalogue
        func judged(_ pins: PinSet, pinset: String? = nil) -> HostReport {
            var host = HostConfig(host: "api.example.com", pins: pins)
            host.pinsetName = pinset
            return Verdict.report(
                for: host, result: Fixtures.result(chain: C.rsaChain), now: Fixtures.now, warnDays: 21, criticalDays: 7,
                catalogue: catalogue)
        }
        // The pin set pins R10 only (breaks on a rotation); release 2.0 pins X1 (survives it).
        let own = judged(PinSet(ca: [Fixtures.spkiPin(10)]), pinset: "api")
        let release = ClientHostVerdict(
            client: "app 2.0", format: .trustkit, report: judged(PinSet(ca: [Fixtures.spkiPin(30)])), rules: [], enforced: true,
            pinsExpire: nil)
        var combined = own
        combined.clients = [release]
        let text = PreflightReport(report: combined, own: own, configured: true, source: "next.pem").text
        let sections = text.components(separatedBy: "\nnext chains")
        XCTAssertEqual(sections.count, 3, text)
        XCTAssertTrue(sections[1].hasPrefix(" for pin set api (Test Encrypt):"), text)
        XCTAssertTrue(sections[1].contains("intermediate rotation via R11: ✗"), text)
        XCTAssertTrue(sections[2].hasPrefix(" for client app 2.0 (Test Encrypt):"), text)
        XCTAssertTrue(sections[2].contains("intermediate rotation via R11: ✓ carried by"), text)
        XCTAssertFalse(sections[2].contains("✗"), "the release that survives is shown surviving:\n\(text)")
    }
}
