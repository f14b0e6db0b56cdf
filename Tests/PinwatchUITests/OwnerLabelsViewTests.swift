import Foundation
import PinwatchCore
import XCTest

@testable import PinwatchUI

/// docs/CONFIGURATION.md, "Owners and runbooks": the detail view names a host's owners
/// and runbook, with the configuration's text made safe for the terminal.
final class OwnerLabelsViewTests: XCTestCase {
    private let now = Fixture.now

    private func detail(_ host: HostConfig) -> String {
        var state = DashboardState(configPath: "c.yaml", hosts: [host], timeZone: Fixture.utc)
        state.record(
            Verdict.report(
                for: host, result: Fixture.result(for: host, status: .ok), now: now, warnDays: 21, criticalDays: 7),
            forHost: 0, at: now)
        state.view = .detail(hostIndex: 0)
        return Fixture.text(DashboardLayout.frame(for: state, width: 140, height: 60, now: now))
    }

    func testDetailShowsLabelsSortedAndTheRunbook() {
        var host = Fixture.host("pay.example")
        host.labels = ["team": "payments", "env": "prod"]
        host.runbook = "https://wiki.example.com/runbooks/payments"
        let text = detail(host)
        let lines = text.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.contains { $0.contains("labels") && $0.contains("env=prod  team=payments") }, text)
        XCTAssertTrue(lines.contains { $0.contains("runbook") && $0.contains("https://wiki.example.com/runbooks/payments") }, text)
    }

    func testDetailWithoutOwnersHasNoOwnerLines() {
        let text = detail(Fixture.host("plain.example"))
        XCTAssertFalse(text.contains(" labels "), text)
        XCTAssertFalse(text.contains(" runbook "), text)
    }
}
