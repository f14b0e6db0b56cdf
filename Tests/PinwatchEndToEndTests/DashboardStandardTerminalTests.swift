import Foundation
import XCTest

/// The dashboard on the terminal most people have: 80×24, and a wide one.
extension DashboardTests {
    func testAtEightyByTwentyFourTheFooterStillSaysHowToGetHelp() throws {
        try startDashboard()
        try session?.resize(columns: 80, rows: 24)
        // tmux cuts a frame painted for 120 columns at 80, which shows no
        // `? help` either: the wait ends only at a footer laid out for 80.
        let screen = try waitForScreen { screen in
            let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
            return lines.count >= 24 && lines[23].contains("q quit") && lines[23].contains("? help")
        }
        XCTAssertFalse(screen.split(separator: "\n").contains { $0.count > 80 }, screen)
        try session?.send("?")
        let help = try waitForScreen { $0.contains("help — any key closes") }
        XCTAssertTrue(help.contains("reverse the sort (ties: config order)"), "no entry cut short:\n\(help)")
    }

    func testOnAWideTerminalTheHelpBoxShowsEveryEntryWhole() throws {
        try startDashboard()
        try session?.resize(columns: 200, rows: 40)
        // A `?` typed before the dashboard has seen the resize opens a box
        // laid out for the old size: wait for the footer on row 40 first.
        try waitForScreen { screen in
            let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
            return lines.count >= 40 && lines[39].contains("q quit") && lines[39].contains("? help")
        }
        try session?.send("?")
        let help = try waitForScreen { $0.contains("help — any key closes") }
        XCTAssertTrue(help.contains("acknowledge the host until… / remove"), help)
        XCTAssertTrue(help.contains("reverse the sort (ties: config order)"), help)
    }
}
