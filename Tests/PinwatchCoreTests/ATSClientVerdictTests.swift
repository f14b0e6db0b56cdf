import Foundation
import XCTest

@testable import PinwatchCore

/// Apple's NSPinnedDomains rules on chains of small integers (Fixtures:
/// leaf key 1, intermediate key 2, root key 3 from the trust store).
final class ATSClientVerdictTests: XCTestCase {
    private let now = Fixtures.now

    private func rule(_ domain: String, ca: [UInt8]?, leaf: [UInt8]?, includeSubdomains: Bool = false) -> ClientPinRule {
        let identities = PinnedIdentities(ca: ca?.map(Fixtures.spkiPin), leaf: leaf?.map(Fixtures.spkiPin))
        return ClientPinRule(
            domain: domain, includeSubdomains: includeSubdomains, pins: (identities.ca ?? []) + (identities.leaf ?? []),
            origin: "Info.plist: NSAppTransportSecurity.NSPinnedDomains.\(domain)", identities: identities)
    }

    private func verdict(_ rules: [ClientPinRule], host: String = "api.example.com", chain: [ChainCertificate]? = nil, trusted: Bool = true)
        -> ClientHostVerdict?
    {
        let client = ClientPolicy(name: "ios 8", pins: ImportedPins(file: "Info.plist", format: .ats, rules: rules))
        let report = Fixtures.report(HostConfig(host: host), Fixtures.result(chain: chain ?? Fixtures.chain(), trusted: trusted))
        return ClientVerdicts.verdict(of: client, on: report, now: now, warnDays: 21, criticalDays: 7)
    }

    func testBothListsMustMatchWhenBothAreGiven() throws {
        let both = try XCTUnwrap(verdict([rule("api.example.com", ca: [2], leaf: [1])]))
        XCTAssertEqual(both.report.status, .leafOnly, "a leaf list breaks at the next leaf key, whatever the CA list says")

        let leafMisses = try XCTUnwrap(verdict([rule("api.example.com", ca: [2], leaf: [9])]))
        XCTAssertEqual(leafMisses.report.status, .blocked, "the CA list matching does not rescue a leaf list that does not")
        XCTAssertTrue(leafMisses.report.alerts.contains(.noMatch))
        XCTAssertEqual(
            leafMisses.tierNote,
            "ATS NSPinnedCAIdentities, the CA tier: matches; NSPinnedLeafIdentities, the leaf tier: no match; both must match")

        let caMisses = try XCTUnwrap(verdict([rule("api.example.com", ca: [9], leaf: [1])]))
        XCTAssertEqual(caMisses.report.status, .blocked, "nor the leaf list a CA list that does not")

        let caOnly = try XCTUnwrap(verdict([rule("api.example.com", ca: [2], leaf: nil)]))
        XCTAssertEqual(caOnly.report.status, .ok)
        XCTAssertEqual(caOnly.tierNote, "ATS NSPinnedCAIdentities, the CA tier: matches")
    }

    func testTheCACheckSkipsTheLeafAndIncludesTheAnchor() throws {
        let leafKeyAsCA = try XCTUnwrap(verdict([rule("api.example.com", ca: [1], leaf: nil)]))
        XCTAssertEqual(leafKeyAsCA.report.status, .blocked, "a CA identity that is the leaf's key does not count")

        let anchor = try XCTUnwrap(verdict([rule("api.example.com", ca: [3], leaf: nil)]))
        XCTAssertEqual(anchor.report.status, .ok, "the root from the trust store is part of the built chain")

        let leafAlone = try XCTUnwrap(verdict([rule("api.example.com", ca: [1], leaf: nil)], chain: [Fixtures.chain()[0]]))
        XCTAssertEqual(leafAlone.report.status, .blocked, "a chain of one certificate fails the CA check")
    }

    func testIncludesSubdomainsCoversOneLabel() {
        let rules = [rule("example.com", ca: [2], leaf: nil, includeSubdomains: true)]
        XCTAssertEqual(verdict(rules, host: "example.com")?.report.status, .ok)
        XCTAssertEqual(verdict(rules, host: "api.example.com")?.report.status, .ok)
        XCTAssertNil(verdict(rules, host: "v2.api.example.com"), "two labels below: ATS does not pin it")
        XCTAssertNil(verdict([rule("example.com", ca: [2], leaf: nil)], host: "api.example.com"))
    }

    func testAnExactEntryAndItsParentAreUnited() throws {
        // The Security framework collects identities from every entry that
        // matches the host; the parent's leaf list joins the exact one's CA list.
        let rules = [rule("api.example.com", ca: [2], leaf: nil), rule("example.com", ca: nil, leaf: [9], includeSubdomains: true)]
        let united = try XCTUnwrap(verdict(rules))
        XCTAssertEqual(united.rules.count, 2)
        XCTAssertEqual(united.report.status, .blocked)
    }

    func testAnEmptyListRefusesEveryChain() throws {
        let emptyCA = try XCTUnwrap(verdict([rule("api.example.com", ca: [], leaf: nil)]))
        XCTAssertEqual(emptyCA.report.status, .blocked)
        let emptyLeaf = try XCTUnwrap(verdict([rule("api.example.com", ca: [2], leaf: [])]))
        XCTAssertEqual(emptyLeaf.report.status, .blocked)
    }

    func testAnUntrustedChainIsRefusedWhateverMatches() throws {
        let untrusted = try XCTUnwrap(verdict([rule("api.example.com", ca: [2], leaf: nil)], trusted: false))
        XCTAssertEqual(untrusted.report.status, .blocked)
    }

    func testTheHostsReasonNamesTheTiers() {
        let client = ClientPolicy(
            name: "ios 8", pins: ImportedPins(file: "Info.plist", format: .ats, rules: [rule("api.example.com", ca: [2], leaf: [9])]))
        let report = Fixtures.report(HostConfig(host: "api.example.com"), Fixtures.result(chain: Fixtures.chain()))
        let combined = ClientVerdicts.apply(to: report, clients: [client], now: now, warnDays: 21, criticalDays: 7)
        XCTAssertEqual(combined.status, .blocked)
        XCTAssertTrue(
            combined.reason.hasPrefix(
                "ios 8 (ATS NSPinnedCAIdentities, the CA tier: matches; NSPinnedLeafIdentities, the leaf tier: no match"),
            combined.reason)
        XCTAssertEqual(
            ClientSelection.reports(of: "ios 8", in: [combined], now: now).first?.reason, combined.reason,
            "check --client says the same")
    }
}
