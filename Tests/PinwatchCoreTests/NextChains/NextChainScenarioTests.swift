import XCTest

@testable import PinwatchCore

/// Issue 26: every combination of pinned level × what the catalogue knows
/// → which next chains survive, and the alerts the verdict raises.
final class NextChainScenarioTests: XCTestCase {
    private typealias C = CatalogueFixtures
    private typealias K = CatalogueFixtures.Knowledge

    enum Pinned: String, CaseIterable {
        case leaf, intermediate, root
        case crossSign = "cross-sign"

        var pins: PinSet {
            switch self {
            case .leaf: return PinSet(leaf: [Fixtures.spkiPin(1)])
            case .intermediate: return PinSet(ca: [Fixtures.spkiPin(10)])
            case .root: return PinSet(ca: [Fixtures.spkiPin(30)])
            // X1's key, on a chain whose own root is X2 cross-signed by X1.
            case .crossSign: return PinSet(ca: [Fixtures.spkiPin(30)])
            }
        }

        var chain: [ChainCertificate] { self == .crossSign ? C.crossSignedChain : C.rsaChain }
    }

    private struct Row {
        var pinned: Pinned
        var knowledge: K
        /// leaf_renewal, intermediate_rotation, root_transition, ca_switch.
        var survives: [Bool?]
        var alerts: [HostAlert]
    }

    private let rows: [Row] = [
        Row(pinned: .leaf, knowledge: .knownPool, survives: [false, false, true, nil], alerts: [.leafOnly]),
        Row(pinned: .leaf, knowledge: .singleIntermediate, survives: [false, true, true, nil], alerts: [.leafOnly]),
        Row(pinned: .leaf, knowledge: .unknownCA, survives: [false, nil, nil, nil], alerts: [.leafOnly]),
        Row(pinned: .leaf, knowledge: .announcedTransition, survives: [false, false, false, nil], alerts: [.leafOnly]),
        Row(pinned: .leaf, knowledge: .provider, survives: [false, false, true, false], alerts: [.leafOnly]),
        Row(pinned: .intermediate, knowledge: .knownPool, survives: [true, false, true, nil], alerts: [.intermediatePool]),
        Row(pinned: .intermediate, knowledge: .singleIntermediate, survives: [true, true, true, nil], alerts: []),
        Row(pinned: .intermediate, knowledge: .unknownCA, survives: [true, nil, nil, nil], alerts: []),
        Row(
            pinned: .intermediate, knowledge: .announcedTransition, survives: [true, false, false, nil],
            alerts: [.intermediatePool, .rootTransition]),
        Row(
            pinned: .intermediate, knowledge: .provider, survives: [true, false, true, false],
            alerts: [.intermediatePool, .caSwitch]),
        Row(pinned: .root, knowledge: .knownPool, survives: [true, true, true, nil], alerts: []),
        Row(pinned: .root, knowledge: .singleIntermediate, survives: [true, true, true, nil], alerts: []),
        Row(pinned: .root, knowledge: .unknownCA, survives: [true, nil, nil, nil], alerts: []),
        Row(pinned: .root, knowledge: .announcedTransition, survives: [true, true, false, nil], alerts: [.rootTransition]),
        Row(pinned: .root, knowledge: .provider, survives: [true, true, true, false], alerts: [.caSwitch]),
        Row(pinned: .crossSign, knowledge: .knownPool, survives: [true, true, true, nil], alerts: []),
        Row(pinned: .crossSign, knowledge: .singleIntermediate, survives: [true, true, true, nil], alerts: []),
        Row(pinned: .crossSign, knowledge: .unknownCA, survives: [true, nil, nil, nil], alerts: []),
        Row(pinned: .crossSign, knowledge: .announcedTransition, survives: [true, true, false, nil], alerts: [.rootTransition]),
        Row(pinned: .crossSign, knowledge: .provider, survives: [true, true, true, false], alerts: [.caSwitch]),
    ]

    func testTableCoversEveryCombination() {
        for pinned in Pinned.allCases {
            for knowledge in K.allCases {
                XCTAssertEqual(rows.filter { $0.pinned == pinned && $0.knowledge == knowledge }.count, 1, "\(pinned) × \(knowledge)")
            }
        }
    }

    func testScenarioTable() throws {
        for row in rows {
            let name = "\(row.pinned.rawValue) × \(row.knowledge.rawValue)"
            let report = C.report(pins: row.pinned.pins, chain: row.pinned.chain, knowledge: row.knowledge)
            let next = try XCTUnwrap(report.nextChains, name)
            XCTAssertEqual(NextChainScenario.allCases.map { next.survives($0) }, row.survives, name)
            let nextChainAlerts = report.alerts.filter { [.leafOnly, .intermediatePool, .rootTransition, .caSwitch].contains($0) }
            XCTAssertEqual(nextChainAlerts, row.alerts, name)
            if !row.alerts.isEmpty { XCTAssertEqual(report.severity, .warning, name) }
            // Every known scenario survives once the recommended pins are added.
            var fixed = row.pinned.pins
            fixed.ca += next.recommended.map { try! Pin.parse($0.pin) }
            let after = try XCTUnwrap(C.report(pins: fixed, chain: row.pinned.chain, knowledge: row.knowledge).nextChains, name)
            for scenario in NextChainScenario.allCases where next.survives(scenario) != nil {
                XCTAssertEqual(after.survives(scenario), true, "\(name): \(scenario) after adding \(next.recommended)")
            }
        }
    }

    func testIntermediatePoolReasonNamesOddsAndFix() {
        let report = C.report(pins: Pinned.intermediate.pins, chain: C.rsaChain, knowledge: .knownPool)
        XCTAssertEqual(report.headline, .intermediatePool)
        XCTAssertEqual(report.nextChains?.recommended.map(\.subject), ["X1"])
        let x1 = String(PinText.sha256(Fixtures.digest(30)).prefix(11))
        XCTAssertEqual(
            report.reason,
            "only the intermediate pin (CN=R10) matches; Test Encrypt issues from R10–R14: 4 of 5 next chains break pinned clients; add X1 (\(x1)…)"
        )
    }

    func testRootTransitionReasonGivesTheDate() {
        let report = C.report(pins: Pinned.root.pins, chain: C.rsaChain, knowledge: .announcedTransition)
        XCTAssertEqual(report.headline, .rootTransition)
        XCTAssertEqual(report.nextChains?.recommended.map(\.subject), ["YR"])
        XCTAssertTrue(report.reason.contains("Generation Y (from \(DateText.day(C.transitionDate)))"), report.reason)
    }

    func testCASwitchNamesTheUncoveredFamilyAndItsRoot() {
        let report = C.report(pins: Pinned.root.pins, chain: C.rsaChain, knowledge: .provider)
        XCTAssertEqual(report.headline, .caSwitch)
        XCTAssertEqual(report.nextChains?.chains(.caSwitch).map(\.via), ["Test Trust Services"])
        XCTAssertEqual(report.nextChains?.recommended.map(\.subject), ["GTS R1"])
        XCTAssertTrue(report.reason.hasPrefix("Test CDN may issue the next certificate from Test Trust Services"), report.reason)
    }

    func testIntermediatePinOfAnUnknownCASaysWhatItSurvives() {
        let report = C.report(pins: Pinned.intermediate.pins, chain: C.rsaChain, knowledge: .unknownCA)
        XCTAssertEqual(report.severity, .ok)
        XCTAssertEqual(report.reason, "an intermediate pin matches: survives leaf renewals, not a change of intermediate")
        XCTAssertEqual(report.nextChains?.recommended, [])
    }

    func testProviderInferredFromAnExclusiveKey() {
        var catalogue = K.provider.catalogue
        catalogue.providers[0].exclusiveKeys = [Fixtures.digest(10)]
        let report = Verdict.report(
            for: HostConfig(host: "api.example.com", pins: Pinned.root.pins), result: Fixtures.result(chain: C.rsaChain),
            now: Fixtures.now, warnDays: 21, criticalDays: 7, catalogue: catalogue)
        XCTAssertEqual(report.nextChains?.provider, "Test CDN")
        XCTAssertEqual(report.nextChains?.survives(.caSwitch), false)
        XCTAssertTrue(report.alerts.contains(.caSwitch))
    }

    func testRetiredIntermediatesAndOtherKeyTypesAreNotRotations() {
        var family = C.letsEncrypt()
        family.intermediates[4].state = .retired
        let report = Verdict.report(
            for: HostConfig(host: "api.example.com", pins: Pinned.intermediate.pins), result: Fixtures.result(chain: C.rsaChain),
            now: Fixtures.now, warnDays: 21, criticalDays: 7, catalogue: Catalogue(families: [family]))
        XCTAssertEqual(report.nextChains?.chains(.intermediateRotation).map(\.via), ["R11", "R12", "R13"])
    }

    func testExpiryKeepsPrecedenceOverAPoolWarning() {
        var chain = C.rsaChain
        chain[0].facts.notAfter = Fixtures.now.addingTimeInterval(3.5 * Fixtures.day)
        var host = HostConfig(host: "api.example.com", pins: Pinned.intermediate.pins)
        host.provider = nil
        let report = Verdict.report(
            for: host, result: Fixtures.result(chain: chain), now: Fixtures.now, warnDays: 21, criticalDays: 7,
            catalogue: K.knownPool.catalogue)
        XCTAssertTrue(report.alerts.contains(.intermediatePool))
        XCTAssertEqual(report.severity, .critical)
        XCTAssertEqual(report.headline, .expiring)
    }
}
