import PinwatchCore
import XCTest

@testable import PinwatchUI

/// A footer message belongs to the view that raised it.
final class FooterMessageScopeTests: XCTestCase {
    private func footer(_ state: DashboardState) -> String {
        Fixture.lines(DashboardLayout.frame(for: state, width: 100, height: 24, now: Fixture.now)).suffix(3).joined(separator: "\n")
    }

    func testAMessageRaisedInTheDetailViewIsGoneBackInTheTable() {
        var state = Fixture.mixedState()
        _ = state.handle(.enter)
        guard case .detail = state.view else { return XCTFail("Enter opens the detail view") }
        state.footerMessage = "stanza: 412 bytes sent as OSC 52"
        XCTAssertTrue(footer(state).contains("412 bytes"), footer(state))
        _ = state.handle(.escape)
        XCTAssertEqual(state.view, .table)
        XCTAssertNil(state.footerMessage)
        XCTAssertFalse(footer(state).contains("412 bytes"), footer(state))
    }

    func testAMessageRaisedInTheTableIsNotShownInTheDetailViewNorAfter() {
        var state = Fixture.mixedState()
        state.footerMessage = "configuration reloaded: 6 hosts from the next cycle"
        _ = state.handle(.character("?"))
        XCTAssertNotNil(state.footerMessage, "help is drawn over the table and keeps its message")
        _ = state.handle(.escape)
        _ = state.handle(.enter)
        XCTAssertFalse(footer(state).contains("reloaded"), footer(state))
        _ = state.handle(.escape)
        XCTAssertFalse(footer(state).contains("reloaded"), "not back either: \(footer(state))")
    }
}
