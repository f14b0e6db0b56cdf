import XCTest

@testable import PinwatchCore

/// DESIGN §8 and §10: JSON v1 gains `next_chains`, `survives` and
/// `recommended_pins` per host, and `survives` per client release.
final class NextChainsJSONTests: XCTestCase {
    private typealias C = CatalogueFixtures

    private func host(_ report: HostReport) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(JSONReport.renderHost(report).utf8)) as? [String: Any])
    }

    func testAPoolPinnedHostSaysWhichChainsBreakAndWhatToAdd() throws {
        let report = C.report(pins: PinSet(ca: [Fixtures.spkiPin(10)]), chain: C.rsaChain, knowledge: .knownPool)
        let json = try host(report)
        let chains = try XCTUnwrap(json["next_chains"] as? [[String: Any]])
        XCTAssertEqual(chains.map { $0["scenario"] as? String }, ["leaf_renewal"] + Array(repeating: "intermediate_rotation", count: 4))
        XCTAssertEqual(chains.map { $0["via"] as? String }, ["R10", "R11", "R12", "R13", "R14"])
        XCTAssertEqual(chains.map { $0["survives"] as? Bool }, [true, false, false, false, false])
        XCTAssertEqual(chains[0]["carried_by"] as? [String], [Fixtures.spkiPin(10).text])
        let survives = try XCTUnwrap(json["survives"] as? [String: Any])
        XCTAssertEqual(survives["leaf_renewal"] as? Bool, true)
        XCTAssertEqual(survives["intermediate_rotation"] as? Bool, false)
        XCTAssertEqual(survives["root_transition"] as? Bool, true)
        XCTAssertTrue(survives["ca_switch"] is NSNull)
        let recommended = try XCTUnwrap(json["recommended_pins"] as? [[String: Any]])
        XCTAssertEqual(recommended.map { $0["pin"] as? String }, [PinText.sha256(Fixtures.digest(30))])
        XCTAssertEqual(recommended.map { $0["subject"] as? String }, ["X1"])
        XCTAssertEqual(json["alerts"] as? [String], ["intermediate_pool"])
        XCTAssertEqual(json["headline"] as? String, "intermediate_pool")
    }

    func testAnUnknownCAIsNullBeyondTheLeafRenewal() throws {
        let json = try host(C.report(pins: PinSet(ca: [Fixtures.spkiPin(10)]), chain: C.rsaChain, knowledge: .unknownCA))
        let survives = try XCTUnwrap(json["survives"] as? [String: Any])
        XCTAssertEqual(survives["leaf_renewal"] as? Bool, true)
        for scenario in ["intermediate_rotation", "root_transition", "ca_switch"] {
            XCTAssertTrue(survives[scenario] is NSNull, scenario)
        }
        let chains = try XCTUnwrap(json["next_chains"] as? [[String: Any]])
        XCTAssertTrue(chains.dropFirst().allSatisfy { $0["survives"] is NSNull })
        XCTAssertEqual((json["recommended_pins"] as? [Any])?.count, 0)
    }

    func testAnUnpinnedHostHasNoNextChains() throws {
        let json = try host(C.report(pins: PinSet(), chain: C.rsaChain, knowledge: .knownPool))
        XCTAssertEqual((json["next_chains"] as? [Any])?.count, 0)
        XCTAssertTrue((json["survives"] as? [String: Any])?["leaf_renewal"] is NSNull)
    }

    func testEachClientReleaseSaysWhichScenariosItSurvives() throws {
        let plain = C.report(pins: PinSet(ca: [Fixtures.spkiPin(30)]), chain: C.rsaChain, knowledge: .knownPool)
        let releases = [("root-app", 30), ("pool-app", 10)].map { name, key in
            ClientPolicy(
                name: name,
                pins: ImportedPins(
                    file: "\(name).xml", format: .nsc,
                    rules: [ClientPinRule(domain: "api.example.com", pins: [Fixtures.spkiPin(UInt8(key))], origin: "\(name).xml:3")]))
        }
        let viewed = ClientVerdicts.apply(
            to: plain, clients: releases, now: Fixtures.now, warnDays: 21, criticalDays: 7, catalogue: C.Knowledge.knownPool.catalogue)
        let clients = try XCTUnwrap(try host(viewed)["clients"] as? [[String: Any]])
        XCTAssertEqual(clients.map { ($0["survives"] as? [String: Any])?["intermediate_rotation"] as? Bool }, [true, false])
        XCTAssertEqual(clients.map { $0["alerts"] as? [String] }, [[], ["intermediate_pool"]])
    }
}
