import XCTest

@testable import PinwatchCore

/// DESIGN §10: the recommended pins in the stanza (`y`, `inspect`), in
/// `lint`, and each release's survival in `check --client`.
final class NextChainTextOutputsTests: XCTestCase {
    private typealias C = CatalogueFixtures
    private let x1 = PinText.sha256(Fixtures.digest(30))

    private func pooled(clients: [ClientPolicy] = []) -> HostReport {
        let plain = C.report(pins: PinSet(ca: [Fixtures.spkiPin(10)]), chain: C.rsaChain, knowledge: .knownPool)
        return ClientVerdicts.apply(
            to: plain, clients: clients, now: Fixtures.now, warnDays: 21, criticalDays: 7, catalogue: C.Knowledge.knownPool.catalogue)
    }

    private func release(_ name: String, keys: [UInt8]) -> ClientPolicy {
        let rule = ClientPinRule(domain: "api.example.com", pins: keys.map(Fixtures.spkiPin), origin: "\(name).xml:7")
        return ClientPolicy(name: name, pins: ImportedPins(file: "\(name).xml", format: .nsc, rules: [rule]))
    }

    func testTheStanzaAddsTheRecommendedRootOnce() {
        let report = pooled()
        let stanza = PinStanza.yaml(
            for: report.config, chain: report.levels.map(\.certificate), recommended: report.nextChains?.recommended ?? [])
        // X1 is the served root: it is in the stanza already, not twice.
        XCTAssertEqual(stanza.components(separatedBy: x1).count, 2, stanza)
        let transition = C.report(pins: PinSet(ca: [Fixtures.spkiPin(30)]), chain: C.rsaChain, knowledge: .announcedTransition)
        let withBackup = PinStanza.yaml(
            for: transition.config, chain: transition.levels.map(\.certificate), recommended: transition.nextChains?.recommended ?? [])
        XCTAssertTrue(
            withBackup.contains("        - \(PinText.sha256(Fixtures.digest(40)))   # YR (recommended: survives the next chains)"),
            withBackup)
    }

    func testInspectListsTheNextChains() {
        let text = ChainListing.text(report: pooled())
        XCTAssertTrue(text.contains("next chains (Test Encrypt):"), text)
        XCTAssertTrue(text.contains("  leaf renewal via R10: ✓ carried by \(Fixtures.spkiPin(10).text)"), text)
        XCTAssertTrue(text.contains("  intermediate rotation via R14: ✗"), text)
        XCTAssertTrue(text.contains("  recommended: \(x1)   # X1"), text)
    }

    func testLintWarnsOfTheReleaseANextChainBreaks() {
        let report = pooled(clients: [release("android 5.2", keys: [10, 99]), release("android 6.0", keys: [30, 99])])
        let findings = ClientLint.hostFindings(report).filter { $0.message.hasPrefix("a next chain breaks") }
        XCTAssertEqual(findings.map(\.client), ["android 5.2"])
        XCTAssertEqual(findings.first?.level, .warning)
        XCTAssertEqual(
            findings.first?.message,
            "a next chain breaks this release (leaf renewal ✓, intermediate rotation ✗, root transition ✓, CA switch ?); add \(x1) (X1)")
    }

    func testCheckForOneClientSaysWhichNextChainsItSurvives() {
        let report = pooled(clients: [release("android 6.0", keys: [30, 99])])
        let own = ClientSelection.reports(of: "android 6.0", in: [report], now: Fixtures.now)
        let text = CheckReport.render(own, nextChains: true).text
        XCTAssertTrue(
            text.contains(
                "api.example.com:443 OK ok: android 6.0: a CA-tier pin matches: survives leaf renewals; leaf 1000 days left; "
                    + "next chains: leaf renewal ✓, intermediate rotation ✓, root transition ✓, CA switch ?"),
            text)
        XCTAssertFalse(CheckReport.render(own).text.contains("next chains"), "plain check is unchanged")
    }
}
