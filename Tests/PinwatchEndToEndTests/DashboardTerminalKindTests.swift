import Foundation
import XCTest

/// What kind of terminal the dashboard is started in: one that cannot move
/// its cursor is refused like no terminal at all.
extension DashboardTests {
    func testDumbTerminalIsRefusedLikeNoTerminal() throws {
        for (term, words) in [("dumb", "TERM=dumb cannot"), ("no-such-terminal-type", "not in the terminfo database")] {
            session?.close()
            session = try TmuxSession(
                command: fleet.watchCommand(), columns: 250, rows: 40, environment: ["TERM": term, "SWIFT_BACKTRACE": "interactive=no"])
            let screen = try waitForScreen { $0.contains("EXITED:") }
            XCTAssertTrue(screen.contains("EXITED:2"), "the non-TTY start's exit code: \(screen)")
            XCTAssertTrue(screen.contains("pinwatch: the dashboard needs a terminal"), screen)
            XCTAssertTrue(screen.contains(words), screen)
            XCTAssertTrue(screen.contains("pinwatch snapshot --format text|ansi|json"), screen)
            XCTAssertEqual(try XCTUnwrap(session).paneFormat("#{alternate_on}"), "0", "the screen was never taken over")
            for name in DashboardFleet.names {
                XCTAssertFalse(screen.contains(fleet.displayName(name)), "no table was drawn: \(screen)")
            }
        }
    }

    func testCLocaleDrawsTheDashboardInASCIIAndUTCNamesItsClock() throws {
        try startDashboard(environment: ["LANG": "C", "LC_ALL": "", "LC_CTYPE": "", "TZ": "Asia/Tokyo"], arguments: ["--utc"])
        // Every row can be painted before the cycle's end is.
        let screen = try waitForScreen { $0.contains("last cycle") }
        XCTAssertTrue(try row(DashboardFleet.rotating, in: screen).contains("+ ok"), screen)
        XCTAssertTrue(try row(DashboardFleet.rotating, in: screen).contains("L+ I+ Rx"), screen)
        XCTAssertTrue(screen.contains("statusv"), screen)
        XCTAssertTrue(screen.unicodeScalars.allSatisfy(\.isASCII), screen)
        XCTAssertNotNil(screen.range(of: "last cycle [0-9]{2}:[0-9]{2}:[0-9]{2} UTC", options: .regularExpression), screen)
        try session?.send("?")
        let help = try waitForScreen { $0.contains("help") && $0.contains("+-") }
        XCTAssertTrue(help.unicodeScalars.allSatisfy(\.isASCII), help)
    }

    func testLocalClockNamesItsZone() throws {
        try startDashboard(environment: ["TZ": "Asia/Tokyo"])
        // Every row can be painted before the cycle's end is.
        let screen = try waitForScreen { $0.contains("last cycle") }
        XCTAssertNotNil(screen.range(of: "last cycle [0-9]{2}:[0-9]{2}:[0-9]{2} (GMT\\+9|JST)", options: .regularExpression), screen)
        XCTAssertTrue(try row(DashboardFleet.rotating, in: screen).contains("✓ ok"), "a UTF-8 locale keeps the glyphs")
    }
}
