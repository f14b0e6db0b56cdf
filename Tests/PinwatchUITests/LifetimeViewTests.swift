import PinwatchCore
import XCTest

@testable import PinwatchUI

/// The dashboard shows each level's lifetime and the share used, and a
/// leaf past two thirds of its life with 30 days left reads
/// `⚠ renewal_overdue` in its row, its detail and the banner.
final class LifetimeViewTests: XCTestCase {
    private let now = Fixture.now

    func testTheRowAndTheDetailSayTheRenewalIsOverdue() {
        let host = Fixture.host("late.example", pins: PinSet(ca: [Fixture.caPin]))
        var result = Fixture.result(for: host, status: .ok, leafDays: 30)
        result.chain[0].facts.notBefore = now.addingTimeInterval(-70 * 86_400)
        let report = Fixture.verdict(for: host, result)
        XCTAssertEqual(report.headline, .renewalOverdue)

        var state = DashboardState(configPath: "c.yaml", hosts: [host], timeZone: Fixture.utc)
        state.beginCycle(total: 1, at: now.addingTimeInterval(-5))
        state.record(report, forHost: 0, at: now)
        state.finishCycle(at: now)
        let table = Fixture.text(DashboardLayout.frame(for: state, width: 160, height: 20, now: now))
        XCTAssertTrue(table.contains("⚠ renewal_overdue"), table)
        XCTAssertTrue(table.contains("RENEWAL OVERDUE"), "the banner's tag: \(table)")

        state.view = .detail(hostIndex: 0)
        _ = DashboardLayout.paint(&state, width: 120, height: 60, now: now)
        let detail = Fixture.text(DashboardLayout.frame(for: state, width: 120, height: 60, now: now))
        XCTAssertTrue(detail.contains("the leaf has used 70% of its 100-day lifetime and has not been renewed"), detail)
        XCTAssertNotNil(detail.range(of: #"lifetime +100 days, 70% used"#, options: .regularExpression), detail)
        // The intermediate: 30 days into its 3,030.
        XCTAssertNotNil(detail.range(of: #"lifetime +3030 days, 1% used"#, options: .regularExpression), detail)
    }
}
