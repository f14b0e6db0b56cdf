import Foundation
import PinwatchCore
import XCTest

@testable import PinwatchUI

/// A dashboard over a window of a fleet (`watch --prometheus`): rows come
/// and go at any refresh, and the fleet is larger than the rows loaded.
final class FleetWindowStateTests: XCTestCase {
    func testAnOpenDetailStaysOnItsHostWhenTheRowsChange() throws {
        var state = Fixture.mixedState()
        state.sortOrder = .configuration
        _ = state.handle(.character("j"))
        _ = state.handle(.enter)
        let bravo = state.hosts[1].identityKey
        XCTAssertEqual(state.view, .detail(hostIndex: 1))

        state.replaceHosts(Array(state.hosts.reversed()), warnDays: 21, criticalDays: 7)
        let moved = try XCTUnwrap(state.hosts.firstIndex { $0.identityKey == bravo })
        XCTAssertEqual(state.view, .detail(hostIndex: moved), "still bravo's detail, at its new index")

        state.replaceHosts(state.hosts.filter { $0.identityKey != bravo }, warnDays: 21, criticalDays: 7)
        XCTAssertEqual(state.view, .table, "its host gone, the detail closes")
    }

    func testACrowdedBannerCountsTheFleetNotTheRowsLoaded() {
        var state = Fixture.mixedState()
        let loaded = BannerLayout.live(for: state, limit: 2).map { $0.map(\.text).joined() }
        XCTAssertTrue(loaded.contains { $0.hasPrefix(" ✗ CRITICAL ×1:") }, "\(loaded)")

        state.fleetTally = FleetTally(hosts: 100_000, severities: [.critical: 5_000], acknowledged: 0, headlines: [:])
        let fleet = BannerLayout.live(for: state, limit: 2).map { $0.map(\.text).joined() }
        let critical = fleet.first { $0.hasPrefix(" ✗ CRITICAL") } ?? ""
        XCTAssertTrue(critical.hasPrefix(" ✗ CRITICAL ×5000:"), critical)
        XCTAssertTrue(critical.hasSuffix("charlie.example:443 (blocked) +4999 more"), critical)
    }
}
