import XCTest

@testable import PinwatchCore

/// DESIGN §10: `pinwatch_next_chain_survives{scenario}` is 1 or 0 where the
/// catalogue can judge, and absent where it cannot.
final class NextChainMetricsTests: XCTestCase {
    private typealias C = CatalogueFixtures

    func testSurvivalPerScenarioWithHelpAndType() {
        let pooled = C.report(pins: PinSet(ca: [Fixtures.spkiPin(10)]), chain: C.rsaChain, knowledge: .knownPool)
        let text = PrometheusExposition.render([pooled], cycle: nil, version: "0")
        XCTAssertEqual(text.components(separatedBy: "# TYPE pinwatch_next_chain_survives gauge\n").count, 2, text)
        XCTAssertTrue(text.contains("# HELP pinwatch_next_chain_survives "), text)
        let samples = text.split(separator: "\n").filter { $0.hasPrefix("pinwatch_next_chain_survives{") }
        XCTAssertEqual(
            samples,
            [
                #"pinwatch_next_chain_survives{host="api.example.com",port="443",scenario="leaf_renewal"} 1"#,
                #"pinwatch_next_chain_survives{host="api.example.com",port="443",scenario="intermediate_rotation"} 0"#,
                #"pinwatch_next_chain_survives{host="api.example.com",port="443",scenario="root_transition"} 1"#,
            ])
        XCTAssertTrue(text.contains(#"pinwatch_host_alert{host="api.example.com",port="443",alert="intermediate_pool"} 1"#), text)
    }

    func testUnknownScenariosAreAbsent() {
        let unknown = C.report(pins: PinSet(ca: [Fixtures.spkiPin(10)]), chain: C.rsaChain, knowledge: .unknownCA)
        let samples = PrometheusExposition.render([unknown], cycle: nil, version: "0").split(separator: "\n")
            .filter { $0.hasPrefix("pinwatch_next_chain_survives{") }
        XCTAssertEqual(samples, [#"pinwatch_next_chain_survives{host="api.example.com",port="443",scenario="leaf_renewal"} 1"#])
    }
}
