import Foundation
import XCTest

/// Sorting by any column and filtering by negation or regex, pressed as a
/// person presses them, in the real binary under tmux.
extension DashboardTests {
    /// The fleet's names in the order their table rows are on the screen.
    private func rowOrder(_ screen: String) -> [String] {
        let lines = screen.split(separator: "\n").map(String.init)
        let rows = DashboardFleet.names.compactMap { name in (try? row(name, in: screen)).map { (name: name, line: $0) } }
        return rows.sorted { (lines.firstIndex(of: $0.line) ?? 0) < (lines.firstIndex(of: $1.line) ?? 0) }.map(\.name)
    }

    func testAngleBracketsSortByTheHostColumnAndIReverses() throws {
        try startDashboard()
        try session?.type(">")
        let byHost = try waitForScreen { $0.contains("host▼") && $0.contains("sort host▼") }
        XCTAssertEqual(rowOrder(byHost), DashboardFleet.names.sorted(), byHost)
        XCTAssertTrue(byHost.contains("by host"), "the header names the order too: \(byHost)")

        try session?.type("I")
        let reversed = try waitForScreen { $0.contains("host▲") && $0.contains("sort host▲") }
        XCTAssertEqual(rowOrder(reversed), DashboardFleet.names.sorted().reversed(), reversed)

        try session?.send("s")
        let worstFirst = try waitForScreen { $0.contains("status▼") && $0.contains("sort status▼") }
        XCTAssertEqual(rowOrder(worstFirst).first, DashboardFleet.down, "s still goes back to worst first: \(worstFirst)")
    }

    func testNegatedRegexFilterAndABadRegexThatKeepsIt() throws {
        try startDashboard()
        try session?.send("/")
        try session?.type("!/^(down|stale)")
        try session?.send("Enter")
        let filtered = try waitForScreen { screen in
            (try? self.row(DashboardFleet.stale, in: screen)) == nil && (try? self.row(DashboardFleet.down, in: screen)) == nil
                && screen.contains("2 hidden by the filter")
        }
        XCTAssertEqual(Set(rowOrder(filtered)), [DashboardFleet.steady, DashboardFleet.rotating], filtered)

        try session?.send("/")
        try session?.type("(")
        let complaint = try waitForScreen { $0.contains("filter: bad regex") }
        XCTAssertTrue(complaint.contains("the previous filter stays"), complaint)
        XCTAssertEqual(Set(rowOrder(complaint)), [DashboardFleet.steady, DashboardFleet.rotating], complaint)
        XCTAssertNil(try XCTUnwrap(session).exitStatus(), "no crash on a bad pattern")

        try session?.send("Escape")
        let cleared = try waitForScreen { !$0.contains("filter: bad regex") && !$0.contains("hidden by the filter") }
        XCTAssertEqual(Set(rowOrder(cleared)), Set(DashboardFleet.names), cleared)
    }
}
