import XCTest

@testable import PinwatchCore

/// DESIGN §10: every combination of pinned level × what the catalogue knows
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
        // Generation Y is served with Root YR's cross-sign by X1: X1 stays on the path.
        Row(pinned: .root, knowledge: .announcedTransition, survives: [true, true, true, nil], alerts: []),
        Row(pinned: .root, knowledge: .provider, survives: [true, true, true, false], alerts: [.caSwitch]),
        Row(pinned: .crossSign, knowledge: .knownPool, survives: [true, true, true, nil], alerts: []),
        Row(pinned: .crossSign, knowledge: .singleIntermediate, survives: [true, true, true, nil], alerts: []),
        Row(pinned: .crossSign, knowledge: .unknownCA, survives: [true, nil, nil, nil], alerts: []),
        Row(pinned: .crossSign, knowledge: .announcedTransition, survives: [true, true, true, nil], alerts: []),
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
        // One intermediate and no pool: only the new hierarchy can break an
        // intermediate pin.
        let catalogue = Catalogue(families: [C.letsEncrypt(pool: false, transitions: [C.generationY])])
        let report = Verdict.report(
            for: HostConfig(host: "api.example.com", pins: Pinned.intermediate.pins), result: Fixtures.result(chain: C.rsaChain),
            now: Fixtures.now, warnDays: 21, criticalDays: 7, catalogue: catalogue)
        XCTAssertEqual(report.headline, .rootTransition)
        XCTAssertEqual(report.nextChains?.recommended.map(\.subject), ["YR"], "its key is on both paths: as the cross-sign and as the root")
        XCTAssertTrue(report.reason.contains("Generation Y (from \(DateText.day(C.transitionDate)))"), report.reason)
    }

    func testARootPinSurvivesTheNewHierarchyThroughItsCrossSignAndIsToldWhatAStoreWouldChange() throws {
        let report = C.report(pins: Pinned.root.pins, chain: C.rsaChain, knowledge: .announcedTransition)
        XCTAssertEqual(report.alerts, [])
        let next = try XCTUnwrap(report.nextChains)
        let transition = try XCTUnwrap(next.chains(.rootTransition).first)
        XCTAssertEqual(transition.survives, true)
        XCTAssertEqual(transition.carriedBy.map(\.text), [Fixtures.spkiPin(30).text])
        XCTAssertEqual(transition.paths.first?.certificates.map(\.name), ["YR1", "YR", "X1"])
        XCTAssertEqual(
            transition.reason,
            "survives on stores without YR, which is every store this data knows of; breaks where a store adds it: pin YR too")
        // A forward pin, not a break: recommended, with no alert.
        XCTAssertEqual(next.recommended.map(\.subject), ["YR"])
        XCTAssertTrue(NextChainText.line(transition).contains("✓ carried by"), NextChainText.line(transition))
    }

    func testAPinOffTheClientPathIsNeitherAMatchNorACarrier() throws {
        // LE's default ECDSA chain: E5 signed by X1 itself, no X2 on the path.
        let e5ByX1 = C.crossSign("E5", key: 15, by: "X1", type: "ECDSA P-384")
        let e6ByX1 = C.crossSign("E6", key: 16, by: "X1", type: "ECDSA P-384")
        var family = C.letsEncrypt()
        family.intermediates = [
            C.intermediate("E5", key: 15, root: "X2", type: "ECDSA P-384", servedWith: [e5ByX1]),
            C.intermediate("E6", key: 16, root: "X2", type: "ECDSA P-384", servedWith: [e6ByX1]),
        ]
        let chain = [
            ChainCertificate(facts: C.facts("api.example.com", key: 2, issuer: "E5", type: "ECDSA P-256"), fromServer: true),
            ChainCertificate(facts: e5ByX1.facts, fromServer: true),
            ChainCertificate(facts: C.x1.facts, fromServer: false),
        ]
        let report = Verdict.report(
            for: HostConfig(host: "api.example.com", pins: PinSet(ca: [Fixtures.spkiPin(31)])), result: Fixtures.result(chain: chain),
            now: Fixtures.now, warnDays: 21, criticalDays: 7, catalogue: Catalogue(families: [family]))
        XCTAssertEqual(report.status, .blocked)
        let next = try XCTUnwrap(report.nextChains)
        XCTAssertEqual(next.chains.filter { !$0.carriedBy.isEmpty }.map(\.via), [], "blocked today, carried by nothing")
        XCTAssertEqual(next.survives(.leafRenewal), false)
        XCTAssertEqual(next.survives(.intermediateRotation), false)
        XCTAssertEqual(next.recommended.map(\.subject), ["X1"])
    }

    func testAnUntrustedChainGetsNoRecommendation() throws {
        var result = Fixtures.result(chain: C.rsaChain)
        result.trusted = false
        let report = Verdict.report(
            for: HostConfig(host: "api.example.com", pins: Pinned.intermediate.pins), result: result, now: Fixtures.now, warnDays: 21,
            criticalDays: 7, catalogue: K.knownPool.catalogue)
        let next = try XCTUnwrap(report.nextChains)
        XCTAssertTrue(next.untrusted)
        XCTAssertEqual(next.recommended, [])
        XCTAssertTrue(NextChainText.section(of: report).contains("recommended: none: the chain is not trusted; fix the trust first"))
        let stanza = try XCTUnwrap(PinStanza.document(for: report))
        XCTAssertFalse(stanza.contains("sha256/"), stanza)
        XCTAssertTrue(stanza.contains("fix the trust first"), stanza)
    }

    func testAFamilyKnownByItsRootsOnlyIsUnknownForRotationAndJudgedPerKeyType() throws {
        let rsaRoot = C.root("Roots RSA", key: 60)
        let eccRoot = C.root("Roots ECC", key: 61, type: "ECDSA P-384")
        let rootsOnly = CatalogueFamily(
            name: "roots", displayName: "Roots Only CA", roots: [rsaRoot, eccRoot], intermediates: [], origin: "test")
        let chain = [
            ChainCertificate(facts: C.facts("api.example.com", key: 1, issuer: "Roots RSA CA 1"), fromServer: true),
            ChainCertificate(facts: C.facts("Roots RSA CA 1", key: 62, issuer: "Roots RSA"), fromServer: true),
            ChainCertificate(facts: rsaRoot.facts, fromServer: false),
        ]
        let report = Verdict.report(
            for: HostConfig(host: "api.example.com", pins: PinSet(ca: [Fixtures.spkiPin(60)])), result: Fixtures.result(chain: chain),
            now: Fixtures.now, warnDays: 21, criticalDays: 7, catalogue: Catalogue(families: [rootsOnly]))
        let next = try XCTUnwrap(report.nextChains)
        XCTAssertNil(next.survives(.intermediateRotation))
        XCTAssertEqual(
            next.chains(.intermediateRotation).first?.reason,
            "the catalogue does not know Roots Only CA's issuing pool, only its roots")
        XCTAssertNil(next.survives(.rootTransition))
        XCTAssertEqual(next.survives(.leafRenewal), true)

        // A CA switch to it is judged by its roots of the leaf's key type only.
        let switching = Catalogue(
            families: [C.letsEncrypt(), rootsOnly],
            providers: [CatalogueProvider(name: "p", displayName: "P", families: ["le", "roots"], source: "test")])
        var host = HostConfig(host: "api.example.com", pins: Pinned.root.pins)
        host.provider = "p"
        let switched = Verdict.report(
            for: host, result: Fixtures.result(chain: C.rsaChain), now: Fixtures.now, warnDays: 21, criticalDays: 7, catalogue: switching)
        XCTAssertEqual(switched.nextChains?.recommended.map(\.subject), ["Roots RSA"])
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
