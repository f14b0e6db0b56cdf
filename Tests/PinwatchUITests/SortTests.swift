import PinwatchCore
import XCTest

@testable import PinwatchUI

/// `<` `>` and `I`: sorting by any column, marked in the header and named
/// in the footer, ties in configuration order.
final class SortTests: XCTestCase {
    private func names(_ state: DashboardState) -> [String] {
        state.visibleHostIndices.map { state.hosts[$0].host }
    }

    func testAngleBracketsStepThroughTheColumnsAndStopAtTheEnds() {
        var state = Fixture.mixedState()
        XCTAssertEqual(state.sortOrder, .worstFirst)
        _ = state.handle(.character("<"))
        XCTAssertEqual(state.sortOrder, .configuration)
        _ = state.handle(.character("<"))
        XCTAssertEqual(state.sortOrder, .configuration, "no column left of configuration order")
        for expected in [SortOrder.worstFirst, .host, .chain, .tier, .days, .proxy, .age, .since, .reason, .reason] {
            _ = state.handle(.character(">"))
            XCTAssertEqual(state.sortOrder, expected)
        }
        _ = state.handle(.character("s"))
        XCTAssertEqual(state.sortOrder, .worstFirst, "s still switches to worst first")
        _ = state.handle(.character("s"))
        XCTAssertEqual(state.sortOrder, .configuration, "and back to configuration order")
    }

    func testDaysSortsSoonestFirstAndReversesWithTiesInConfigurationOrder() {
        var state = Fixture.mixedState()
        state.sortOrder = .days
        // bravo's leaf has 23 days; alpha, charlie and echo 60 (a tie, in
        // configuration order); delta (an error) has no expiry; foxtrot waits.
        XCTAssertEqual(
            names(state), ["bravo.example", "alpha.example", "charlie.example", "echo.example", "delta.example", "foxtrot.example"])
        _ = state.handle(.character("I"))
        XCTAssertTrue(state.sortReversed)
        XCTAssertEqual(
            names(state), ["delta.example", "alpha.example", "charlie.example", "echo.example", "bravo.example", "foxtrot.example"],
            "reversed, ties stay in configuration order and the waiting host stays last")
    }

    /// ▼ puts what needs attention first, as for every other column: the
    /// hosts no pin protects, then those on the leaf alone, CA pins last.
    func testTierSortsTheLeastProtectedFirst() {
        var state = Fixture.mixedState()
        state.sortOrder = .tier
        XCTAssertEqual(
            names(state), ["charlie.example", "delta.example", "echo.example", "bravo.example", "alpha.example", "foxtrot.example"],
            "blocked, error and unpinned match no pin (worst severity first), bravo the leaf only, alpha a CA pin")
        state.sortReversed = true
        XCTAssertEqual(names(state).first, "alpha.example")
        XCTAssertEqual(names(state).last, "foxtrot.example", "waiting hosts stay last")
    }

    func testHostAndStatusOrders() {
        var state = Fixture.mixedState()
        state.sortOrder = .host
        state.sortReversed = true
        XCTAssertEqual(
            names(state), ["echo.example", "delta.example", "charlie.example", "bravo.example", "alpha.example", "foxtrot.example"])
        state.sortOrder = .worstFirst
        state.sortReversed = false
        XCTAssertEqual(names(state).first, "charlie.example", "blocked is the worst")
        XCTAssertEqual(names(state).last, "foxtrot.example")
        state.sortReversed = true
        XCTAssertEqual(names(state).first, "alpha.example", "reversed: ok first")
        XCTAssertEqual(state.sortDescription, "best first")
    }

    func testTheSortedColumnIsMarkedInTheHeaderAndNamedInTheFooter() throws {
        var state = Fixture.mixedState()
        let frame = { DashboardLayout.frame(for: state, width: 100, height: 24, now: Fixture.now) }
        var lines = Fixture.lines(frame())
        var titles = try XCTUnwrap(lines.first { $0.contains(" host ") && $0.contains("chain") })
        XCTAssertTrue(titles.contains("status▼"), titles)
        XCTAssertTrue(lines.last?.contains("sort status▼") == true, lines.last ?? "")

        _ = state.handle(.character(">"))
        _ = state.handle(.character(">"))
        _ = state.handle(.character(">"))
        _ = state.handle(.character(">"))
        _ = state.handle(.character("I"))
        XCTAssertEqual(state.sortOrder, .days)
        lines = Fixture.lines(frame())
        titles = try XCTUnwrap(lines.first { $0.contains(" host ") && $0.contains("chain") })
        XCTAssertTrue(titles.contains("days▲"), "the four-cell days column grows to hold its arrow: \(titles)")
        XCTAssertFalse(titles.contains("status▼"), titles)
        XCTAssertTrue(lines.last?.contains("sort days▲") == true, lines.last ?? "")
        XCTAssertTrue(lines[1].contains("by days, reversed"), lines[1])
    }
}
