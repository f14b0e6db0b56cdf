import Foundation
import PinwatchCore
import XCTest

@testable import PinwatchUI

/// DESIGN §10: the detail view's "next chains" section and recommended pins,
/// and the client view's per-release survival line.
final class NextChainViewTests: XCTestCase {
    private let now = Fixture.now

    /// The fixture chain (leaf 0, intermediate 40, root 80) as one of a
    /// pool of five intermediates under its root.
    private var catalogue: Catalogue { Fixture.poolCatalogue }

    private func report(pins: PinSet, clients: [ClientPolicy] = []) -> HostReport {
        let host = Fixture.host("pool.example", pins: pins)
        let result = Fixture.result(for: host, status: .blocked)
        let plain = Verdict.report(for: host, result: result, now: now, warnDays: 21, criticalDays: 7, catalogue: catalogue)
        return ClientVerdicts.apply(to: plain, clients: clients, now: now, warnDays: 21, criticalDays: 7, catalogue: catalogue)
    }

    private func detail(_ report: HostReport) -> String {
        var state = DashboardState(configPath: "c.yaml", hosts: [report.config], timeZone: Fixture.utc)
        state.record(report, forHost: 0, at: now)
        state.view = .detail(hostIndex: 0)
        return Fixture.text(DashboardLayout.frame(for: state, width: 140, height: 80, now: now))
    }

    func testDetailListsEachNextChainAndTheRootToAdd() throws {
        let text = detail(report(pins: PinSet(ca: [Fixture.pin(40)])))
        XCTAssertTrue(text.contains("⚠ intermediate_pool"), text)
        XCTAssertTrue(text.contains("next chains (Test CA)"), text)
        let lines = text.split(separator: "\n")
        let renewal = try XCTUnwrap(lines.first { $0.contains("leaf renewal") })
        XCTAssertTrue(renewal.contains("✓ R10"), String(renewal))
        XCTAssertTrue(renewal.contains("carried by \(Fixture.pin(40).text)"), String(renewal))
        let rotations = lines.filter { $0.contains("intermediate rotation") }
        XCTAssertEqual(rotations.count, 4, text)
        XCTAssertTrue(rotations.allSatisfy { $0.contains("✗ R1") && $0.contains("no pin matches it") }, text)
        let caSwitch = try XCTUnwrap(lines.first { $0.contains("CA switch") })
        XCTAssertTrue(caSwitch.contains("? no provider declared (provider: on the host or its pin set)"), String(caSwitch))
        XCTAssertTrue(text.contains("recommended pins"), text)
        XCTAssertTrue(text.contains("ca    \(PinText.sha256(Fixture.digest(80)))   # Test Root"), text)
    }

    func testAHostPinnedToTheRootHasNothingToAdd() {
        let text = detail(report(pins: PinSet(ca: [Fixture.pin(80)])))
        XCTAssertTrue(text.contains("next chains (Test CA)"), text)
        XCTAssertFalse(text.contains("✗ R1"), text)
        XCTAssertFalse(text.contains("recommended pins"), text)
    }

    func testEachReleaseSaysWhichNextChainsItSurvives() throws {
        func release(_ name: String, pin: UInt8) -> ClientPolicy {
            let rule = ClientPinRule(domain: "pool.example", pins: [Fixture.pin(pin)], origin: "\(name).xml:4")
            return ClientPolicy(name: name, pins: ImportedPins(file: "\(name).xml", format: .nsc, rules: [rule]))
        }
        let viewed = report(
            pins: PinSet(ca: [Fixture.pin(80)]), clients: [release("android 5.2", pin: 40), release("android 6.0", pin: 80)])
        var state = DashboardState(configPath: "c.yaml", hosts: [viewed.config], timeZone: Fixture.utc)
        state.clients = viewed.clients.map { ($0.client, $0.format) }
        state.record(viewed, forHost: 0, at: now)
        _ = state.handle(.character("c"))
        let lines = Fixture.lines(DashboardLayout.frame(for: state, width: 140, height: 30, now: now))
        let survival = lines.filter { $0.contains("next chains:") }
        XCTAssertEqual(survival.count, 2, lines.joined(separator: "\n"))
        XCTAssertTrue(survival[0].contains("leaf renewal ✓, intermediate rotation ✗, root transition ✓, CA switch ?"), survival[0])
        XCTAssertTrue(survival[1].contains("leaf renewal ✓, intermediate rotation ✓, root transition ✓, CA switch ?"), survival[1])
    }
}
