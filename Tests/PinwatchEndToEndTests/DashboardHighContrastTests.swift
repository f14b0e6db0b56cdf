import Foundation
import XCTest

/// The high-contrast theme's selection bar, as the terminal draws it.
extension DashboardTests {
    func testHighContrastSelectedRowIsAllInTheBarsForeground() throws {
        try startDashboard(arguments: ["--theme", "high-contrast"])
        // The top row is selected: worst first, that is the down host, whose
        // row has the error magenta, the dim columns and the status colour.
        let label = fleet.displayName(DashboardFleet.down)
        let coloured = try XCTUnwrap(session?.capture(escapes: true))
        let line = try XCTUnwrap(
            coloured.split(separator: "\n").map(String.init).first {
                let plain = String(SGRLine.characters(of: $0).map(\.character))
                return plain.contains(label) && plain.contains("error") && !plain.contains("ERROR")
            }, coloured)
        let drawn = SGRLine.characters(of: line).filter { $0.character != " " }
        XCTAssertFalse(drawn.isEmpty)
        for cell in drawn {
            XCTAssertEqual(cell.foreground, "30", "\(cell.character) in \(line.debugDescription)")
        }
        // A row off the bar keeps its role colours.
        let other = try XCTUnwrap(
            coloured.split(separator: "\n").map(String.init).first {
                String(SGRLine.characters(of: $0).map(\.character)).contains(fleet.displayName(DashboardFleet.steady))
            }, coloured)
        XCTAssertTrue(SGRLine.characters(of: other).contains { $0.foreground != "30" && $0.character != " " }, other)
    }
}
