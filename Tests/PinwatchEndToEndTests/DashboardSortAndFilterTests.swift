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
}
