import XCTest

@testable import PinwatchCore

/// A verdict whose next chains come from the memo is the verdict judged
/// afresh: for every pinned level, catalogue, leaf and date, and across a
/// catalogue's dated changes, which the memo must not carry over.
final class NextChainMemoTests: XCTestCase {
    private typealias C = CatalogueFixtures
    private typealias F = Fixtures

    private func report(
        _ host: HostConfig, chain: [ChainCertificate], catalogue: Catalogue, at date: Date, memo: NextChainMemo?, trusted: Bool = true
    ) -> HostReport {
        var result = F.result(chain: chain)
        result.trusted = trusted
        return Verdict.report(
            for: host, result: result, now: date, warnDays: 21, criticalDays: 7, catalogue: catalogue, memo: memo)
    }

    /// The same chain under another leaf: its own key, names and dates.
    private func renewed(_ chain: [ChainCertificate], key: UInt8) -> [ChainCertificate] {
        var chain = chain
        var leaf = C.facts("other-\(key).example.com", key: key, issuer: "ignored")
        leaf.issuer = chain[0].facts.issuer
        leaf.subjectAltNames = ["other-\(key).example.com"]
        leaf.notAfter = F.now.addingTimeInterval(Double(key) * F.day)
        chain[0] = ChainCertificate(facts: leaf, fromServer: true)
        return chain
    }

    func testEveryScenarioThroughOneMemoIsTheFreshVerdict() {
        let memo = NextChainMemo()
        let pinSets = [
            PinSet(leaf: [F.spkiPin(1)]), PinSet(ca: [F.spkiPin(10)]), PinSet(ca: [F.spkiPin(30)]), PinSet(ca: [F.spkiPin(99)]),
        ]
        let dates = [F.now, C.transitionDate.addingTimeInterval(-1), C.transitionDate, C.transitionDate.addingTimeInterval(F.day)]
        for knowledge in C.Knowledge.allCases {
            for pins in pinSets {
                for base in [C.rsaChain, C.crossSignedChain] {
                    for chain in [base, renewed(base, key: 3), renewed(base, key: 4)] {
                        for date in dates {
                            for trusted in [true, false] {
                                var host = HostConfig(host: "api.example.com", pins: pins)
                                host.provider = knowledge.provider
                                let fresh = report(
                                    host, chain: chain, catalogue: knowledge.catalogue, at: date, memo: nil, trusted: trusted)
                                let memoised = report(
                                    host, chain: chain, catalogue: knowledge.catalogue, at: date, memo: memo, trusted: trusted)
                                XCTAssertEqual(memoised, fresh, "\(knowledge.rawValue), \(pins), \(chain[0].facts.subject), \(date)")
                            }
                        }
                    }
                }
            }
        }
    }

    func testAnotherLeafUnderTheSameIntermediateIsAHitAndATransitionDateIsNot() throws {
        let memo = NextChainMemo()
        let catalogue = Catalogue(families: [C.letsEncrypt(transitions: [C.generationY])])
        let host = HostConfig(host: "api.example.com", pins: PinSet(ca: [F.spkiPin(10)]))
        let before = report(host, chain: C.rsaChain, catalogue: catalogue, at: F.now, memo: memo)
        _ = report(host, chain: renewed(C.rsaChain, key: 3), catalogue: catalogue, at: F.now.addingTimeInterval(F.day), memo: memo)
        XCTAssertEqual(memo.count, 1)
        // From the transition's date its intermediates are in the pool, and no transition is pending.
        let after = report(host, chain: C.rsaChain, catalogue: catalogue, at: C.transitionDate, memo: memo)
        XCTAssertEqual(memo.count, 2)
        XCTAssertEqual(try XCTUnwrap(before.nextChains).survives(.rootTransition), false)
        XCTAssertEqual(try XCTUnwrap(after.nextChains).chains(.rootTransition), [])
        XCTAssertNotEqual(before.nextChains, after.nextChains)
    }

    func testAnIntermediatesRetirementDateIsAChangeTheMemoSees() throws {
        let retiring = Date(timeIntervalSince1970: F.now.timeIntervalSince1970 + 30 * F.day)
        var family = C.letsEncrypt()
        family.intermediates[1].periods = [.init(state: .retired, from: retiring)]
        let catalogue = Catalogue(families: [family])
        let memo = NextChainMemo()
        let host = HostConfig(host: "api.example.com", pins: PinSet(ca: [F.spkiPin(10)]))
        for date in [F.now, retiring.addingTimeInterval(-1), retiring, retiring.addingTimeInterval(F.day)] {
            XCTAssertEqual(
                report(host, chain: C.rsaChain, catalogue: catalogue, at: date, memo: memo),
                report(host, chain: C.rsaChain, catalogue: catalogue, at: date, memo: nil), "\(date)")
        }
        XCTAssertEqual(memo.count, 2)
        let pool = try XCTUnwrap(report(host, chain: C.rsaChain, catalogue: catalogue, at: retiring, memo: memo).nextChains).pool
        XCTAssertFalse(pool.contains("R11"), "\(pool)")
    }

    func testAnotherCatalogueEmptiesTheMemo() {
        let memo = NextChainMemo()
        let host = HostConfig(host: "api.example.com", pins: PinSet(ca: [F.spkiPin(10)]))
        _ = report(host, chain: C.rsaChain, catalogue: C.Knowledge.knownPool.catalogue, at: F.now, memo: memo)
        let single = report(host, chain: C.rsaChain, catalogue: C.Knowledge.singleIntermediate.catalogue, at: F.now, memo: memo)
        XCTAssertEqual(memo.count, 1)
        XCTAssertEqual(single.nextChains?.survives(.intermediateRotation), true)
    }
}
