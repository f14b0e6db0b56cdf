import Foundation
import XCTest

/// Footer messages stay with the view that raised them.
extension DashboardTests {
    func testTheDetailViewsCopyMessageIsNotShownBackInTheTable() throws {
        try startDashboard()
        try session?.send("j")
        try session?.send("Enter")
        try waitForScreen { $0.contains("detail:") }
        try session?.send("y")
        try waitForScreen { $0.contains("bytes sent as OSC 52") }
        try session?.send("Escape")
        let table = try waitForScreen { !$0.contains("detail:") && $0.contains("q quit") }
        XCTAssertFalse(table.contains("OSC 52"), "the detail view's message left with it:\n\(table)")
        try session?.send("Enter")
        let detail = try waitForScreen { $0.contains("detail:") }
        XCTAssertFalse(detail.contains("OSC 52"), "nor does it come back with the detail view:\n\(detail)")
    }
}
