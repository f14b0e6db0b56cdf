import PinwatchCore
import XCTest

@testable import PinwatchUI

/// The grouped warning line of a crowded banner names what it holds.
final class BannerGroupTitleTests: XCTestCase {
    private func warningLine(_ headlines: [HostHeadline]) throws -> String {
        let hosts = headlines.indices.map { Fixture.host("w\($0).example") }
        var state = DashboardState(configPath: "c.yaml", hosts: hosts, timeZone: Fixture.utc)
        for (index, headline) in headlines.enumerated() {
            let report = Fixture.report(for: hosts[index], status: .ok).decidedElsewhere(
                severity: .warning, headline: headline, reason: "\(headline.rawValue) reason")
            state.record(report, forHost: index, at: Fixture.now)
        }
        // Five warnings on twelve rows: more than the banner's three lines, so grouped.
        let lines = Fixture.lines(DashboardLayout.frame(for: state, width: 200, height: 12, now: Fixture.now))
        return try XCTUnwrap(lines.first { $0.hasPrefix(" ⚠ WARNING ×") }, lines.joined(separator: "\n"))
    }

    func testAMixedGroupNamesEachKindNotOneMemberssWords() throws {
        let line = try warningLine([.intermediatePool, .chainChanged, .intermediatePool, .chainChanged, .chainChanged])
        XCTAssertTrue(line.hasPrefix(" ⚠ WARNING ×5: 2 intermediate pool, 3 chain changed — "), line)
        XCTAssertFalse(line.contains("expiring soon"), line)
    }

    func testLeafOnlyLeadsAndExpiringKeepsItsWords() throws {
        let line = try warningLine([.expiring, .leafOnly, .expiring, .chainChanged, .expiring])
        XCTAssertTrue(
            line.hasPrefix(" ⚠ WARNING ×5: 1 LEAF ONLY: break at next renewal, 3 expiring soon, 1 chain changed — w1.example"), line)
        let alike = try warningLine(Array(repeating: .expiring, count: 5))
        XCTAssertTrue(alike.hasPrefix(" ⚠ WARNING ×5: 5 expiring soon — "), alike)
    }
}
