import PinwatchCore
import XCTest

@testable import PinwatchUI

final class KeyHandlingTests: XCTestCase {
    private func manyHosts(_ count: Int) -> DashboardState {
        let hosts = (0..<count).map { Fixture.host("h\($0).example") }
        var state = DashboardState(configPath: "c.yaml", hosts: hosts, timeZone: Fixture.utc)
        state.sortOrder = .configuration
        _ = DashboardLayout.paint(&state, width: 80, height: 24, now: Fixture.now)
        return state
    }

    func testSelectionStaysWithinBounds() {
        var state = manyHosts(5)
        XCTAssertEqual(state.selectedHost, 0)
        _ = state.handle(.up)
        XCTAssertEqual(state.selectedHost, 0)
        for _ in 0..<10 { _ = state.handle(.character("j")) }
        XCTAssertEqual(state.selectedHost, 4)
        _ = state.handle(.character("k"))
        XCTAssertEqual(state.selectedHost, 3)
        _ = state.handle(.character("G"))
        XCTAssertEqual(state.selectedHost, 4)
        _ = state.handle(.character("g"))
        XCTAssertEqual(state.selectedHost, 0)
        _ = state.handle(.end)
        XCTAssertEqual(state.selectedHost, 4)
        _ = state.handle(.home)
        XCTAssertEqual(state.selectedHost, 0)
    }

    func testPagingMovesByTheVisibleRowsAndScrolls() {
        var state = manyHosts(100)
        // 24 rows: 2 header, 1 column titles, 1 footer.
        let page = 24 - 2 - 1 - 1
        _ = state.handle(.pageDown)
        XCTAssertEqual(state.selectedHost, page)
        XCTAssertEqual(state.scrollOffset, 1)
        let lines = Fixture.lines(DashboardLayout.frame(for: state, width: 80, height: 24, now: Fixture.now))
        XCTAssertTrue(lines.contains { $0.contains("h\(page).example") })
        XCTAssertFalse(lines.contains { $0.contains("h0.example") })
        _ = state.handle(.pageDown)
        XCTAssertEqual(state.selectedHost, 2 * page)
        _ = state.handle(.pageUp)
        XCTAssertEqual(state.selectedHost, page)
        _ = state.handle(.pageUp)
        _ = state.handle(.pageUp)
        XCTAssertEqual(state.selectedHost, 0)
        XCTAssertEqual(state.scrollOffset, 0)
        _ = state.handle(.character("G"))
        XCTAssertEqual(state.selectedHost, 99)
        XCTAssertEqual(state.scrollOffset, 100 - page)
    }

    func testEmptyTableKeysDoNothing() {
        var state = DashboardState(configPath: "c.yaml", hosts: [])
        for key in [Key.up, .down, .pageUp, .pageDown, .character("g"), .character("G"), .enter] {
            XCTAssertEqual(state.handle(key), [])
        }
        XCTAssertEqual(state.view, .table)
        XCTAssertNil(state.selectedHost)
    }

    func testCommands() {
        var state = manyHosts(3)
        XCTAssertEqual(state.handle(.character("q")), [.quit])
        XCTAssertEqual(state.handle(.ctrlC), [.quit])
        XCTAssertEqual(state.handle(.character("r")), [.refresh])
        XCTAssertEqual(state.handle(.character("t")), [.nextTheme])
        XCTAssertEqual(state.handle(.resize), [])
        _ = state.handle(.down)
        _ = state.handle(.enter)
        XCTAssertEqual(state.handle(.character("y")), [.copyPins(hostIndex: 1)])
        XCTAssertEqual(state.handle(.character("q")), [], "q in the detail view goes back")
        XCTAssertEqual(state.view, .table)
        XCTAssertEqual(state.handle(.character("q")), [.quit], "q in the table quits")
    }

    /// Screen rows 0–1 are the header, row 2 the column titles (no banner
    /// without results), so host rows start at screen row 3.
    func testWheelMovesThreeRowsAndAClickSelectsTheRowUnderIt() {
        var state = manyHosts(30)
        _ = state.handle(.wheelDown)
        XCTAssertEqual(state.selectedHost, 3)
        _ = state.handle(.wheelUp)
        _ = state.handle(.wheelUp)
        XCTAssertEqual(state.selectedHost, 0, "never above the first row")
        _ = state.handle(.click(row: 3 + 5))
        XCTAssertEqual(state.selectedHost, 5)
        _ = state.handle(.click(row: 0))
        XCTAssertEqual(state.selectedHost, 5, "a click on the header selects nothing")
        _ = state.handle(.click(row: 23))
        XCTAssertEqual(state.selectedHost, 5, "nor one on the footer")
        _ = state.handle(.enter)
        _ = state.handle(.wheelDown)
        XCTAssertEqual(state.view, .detail(hostIndex: 5), "in details the wheel scrolls")
    }

    func testQuitFromAnywhereAndHelpOnF1() {
        var state = manyHosts(3)
        _ = state.handle(.enter)
        XCTAssertEqual(state.handle(.character("Q")), [.quit], "Q quits from the detail view")
        XCTAssertEqual(state.handle(.function(10)), [.quit], "F10 quits from the detail view")
        XCTAssertEqual(state.handle(.function(1)), [])
        XCTAssertEqual(state.view, .help, "F1 opens help")
        XCTAssertEqual(state.handle(.character("q")), [], "q closes help")
        XCTAssertEqual(state.view, .table)
        _ = state.handle(.function(1))
        XCTAssertEqual(state.handle(.function(1)), [])
        XCTAssertEqual(state.view, .table, "F1 again closes it")
        _ = state.handle(.character("/"))
        XCTAssertEqual(state.handle(.character("Q")), [], "while typing a filter, Q is a letter")
        XCTAssertEqual(state.filter, "Q")
        XCTAssertEqual(state.handle(.function(10)), [.quit], "F10 still quits")
    }

    func testFilterEditing() {
        var state = manyHosts(30)
        _ = state.handle(.character("/"))
        XCTAssertTrue(state.isEditingFilter)
        // While editing, letters are text, not commands.
        XCTAssertEqual(state.handle(.character("q")), [])
        XCTAssertEqual(state.handle(.character("h")), [])
        XCTAssertEqual(state.filter, "qh")
        _ = state.handle(.backspace)
        _ = state.handle(.backspace)
        _ = state.handle(.backspace)
        XCTAssertEqual(state.filter, "")
        for character in "h2" { _ = state.handle(.character(character)) }
        XCTAssertEqual(state.visibleHostIndices, [2, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29])
        XCTAssertEqual(state.selectedHost, 2, "the selection moves onto a visible host")
        _ = state.handle(.enter)
        XCTAssertFalse(state.isEditingFilter)
        XCTAssertEqual(state.filter, "h2")
        _ = state.handle(.character("/"))
        _ = state.handle(.character("5"))
        XCTAssertEqual(state.filter, "h25", "editing continues the kept filter")
        _ = state.handle(.escape)
        XCTAssertEqual(state.filter, "")
        XCTAssertFalse(state.isEditingFilter)
        XCTAssertEqual(state.visibleHostIndices.count, 30)
        _ = state.handle(.character("/"))
        _ = state.handle(.character("\u{1B}"))
        XCTAssertEqual(state.filter, "", "control characters never enter the filter")
        for character in "h2" { _ = state.handle(.character(character)) }
        _ = state.handle(.ctrlU)
        XCTAssertEqual(state.filter, "", "Ctrl-U clears what was typed")
        XCTAssertTrue(state.isEditingFilter, "and typing goes on")
        XCTAssertEqual(state.visibleHostIndices.count, 30)
    }

    func testEscapeInTableClearsAKeptFilter() {
        var state = manyHosts(5)
        state.filter = "h3"
        _ = state.handle(.escape)
        XCTAssertEqual(state.filter, "")
    }

    func testDetailScrollIsBounded() {
        var state = Fixture.mixedState()
        state.view = .detail(hostIndex: 1)
        XCTAssertEqual(state.maxDetailScroll, 0, "a view not painted yet has not been measured")
        _ = DashboardLayout.paint(&state, width: 80, height: 10, now: Fixture.now)
        _ = state.handle(.up)
        XCTAssertEqual(state.detailScroll, 0)
        _ = state.handle(.character("G"))
        let bottom = state.detailScroll
        XCTAssertGreaterThan(bottom, 0)
        _ = state.handle(.pageDown)
        XCTAssertEqual(state.detailScroll, bottom)
        _ = state.handle(.character("k"))
        XCTAssertEqual(state.detailScroll, bottom - 1)
        _ = state.handle(.character("g"))
        XCTAssertEqual(state.detailScroll, 0)
        let lines = Fixture.lines(DashboardLayout.frame(for: state, width: 80, height: 10, now: Fixture.now))
        XCTAssertTrue(lines[3].contains("host"), lines[3])
    }

    /// A paint hands the state what it measured; clicks and
    /// scrolling follow the banner the paint drew and the detail lines it
    /// built, without the state calling the layout.
    func testAPaintHandsTheStateItsMeasures() {
        var state = Fixture.mixedState()
        let lines = Fixture.lines(DashboardLayout.paint(&state, width: 80, height: 24, now: Fixture.now))
        let banner = lines.filter { Fixture.isBannerLine($0) }.count
        XCTAssertEqual(banner, 3, lines.joined(separator: "\n"))
        XCTAssertEqual(state.metrics.firstHostRow, 2 + banner + 1)
        XCTAssertEqual(state.metrics.tableCapacity, 24 - 2 - banner - 1 - 1)
        let firstRowHost = state.visibleHostIndices[0]
        XCTAssertTrue(lines[state.metrics.firstHostRow].contains(state.hosts[firstRowHost].displayName))
        _ = state.handle(.down)
        _ = state.handle(.click(row: state.metrics.firstHostRow))
        XCTAssertEqual(state.selectedHost, firstRowHost, "the row drawn under the banner")

        _ = state.handle(.enter)
        _ = DashboardLayout.paint(&state, width: 80, height: 24, now: Fixture.now)
        let detail = DetailLayout.lines(for: state, hostIndex: firstRowHost, now: Fixture.now)
        XCTAssertEqual(state.metrics.scrolledLineCount, detail.count)
        _ = state.handle(.character("G"))
        XCTAssertEqual(state.detailScroll, max(0, detail.count - state.metrics.scrolledCapacity))
    }

    func testSelectionFollowsTheHostWhenRowsResort() {
        var state = Fixture.mixedState()
        _ = state.handle(.character("G"))
        XCTAssertEqual(state.selectedHost, 5)
        state.record(Fixture.report(for: state.hosts[5], status: .blocked), forHost: 5, at: Fixture.now)
        XCTAssertEqual(state.selectedHost, 5)
        XCTAssertEqual(state.selectedRow, 1, "foxtrot is now blocked, right after charlie (config order breaks the tie)")
    }
}
