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
}
