import Foundation
import XCTest

/// `pinwatch watch` as the on-call sees it: the real binary in a tmux pane,
/// watching TLS servers this test starts on 127.0.0.1.
final class DashboardTests: XCTestCase {
    var fleet: DashboardFleet!
    var session: TmuxSession?

    override func setUpWithError() throws {
        fleet = try DashboardFleet()
    }

    override func tearDown() {
        session?.close()
        fleet?.stop()
    }

    // MARK: What the table shows

    func testEveryHostHasARowWithItsStatusColoursAndReason() throws {
        let screen = try startDashboard()
        XCTAssertTrue(try row(DashboardFleet.steady, in: screen).contains("✓ ok"))
        XCTAssertTrue(try row(DashboardFleet.rotating, in: screen).contains("✓ ok"))
        XCTAssertTrue(try row(DashboardFleet.stale, in: screen).contains("⚠ leaf_only"))
        let down = try row(DashboardFleet.down, in: screen)
        XCTAssertTrue(down.contains("! error"), down)
        XCTAssertTrue(down.contains("refused"), "an error row says why: \(down)")
        XCTAssertTrue(screen.contains("LEAF ONLY \(fleet.displayName(DashboardFleet.stale))"), screen)
        XCTAssertFalse(screen.contains("LEAF ONLY \(fleet.displayName(DashboardFleet.rotating))"), screen)

        // Default theme (DESIGN §2): leaf green (SGR 32), intermediate blue
        // (34), root red (31). `rotating` is not the selected row, so no
        // selection bar is drawn over it.
        let coloured = try XCTUnwrap(session?.capture(escapes: true))
        let line = try XCTUnwrap(
            coloured.split(separator: "\n").map(String.init).first {
                let plain = String(SGRLine.characters(of: $0).map(\.character))
                return plain.contains(fleet.displayName(DashboardFleet.rotating)) && plain.contains("✓ ok")
            }, coloured)
        let cells = SGRLine.characters(of: line)
        for (letter, colour) in [("L", "32"), ("I", "34"), ("R", "31")] {
            let index = try XCTUnwrap(
                cells.indices.first { cells[$0].character == Character(letter) && "✓✗·".contains(cells[$0 + 1].character) },
                "no \(letter) cell in \(line.debugDescription)")
            XCTAssertEqual(cells[index].foreground, colour, "\(letter) in \(line.debugDescription)")
            XCTAssertEqual(cells[index + 1].foreground, colour, "the symbol after \(letter) shares its colour")
        }
    }

    func testRotatedIntermediateRaisesTheBannerWithoutRestart() throws {
        let rotating = fleet.displayName(DashboardFleet.rotating)
        let before = try startDashboard()
        XCTAssertTrue(try row(DashboardFleet.rotating, in: before).contains("✓ ok"))
        XCTAssertFalse(before.contains("LEAF ONLY \(rotating)"))

        try fleet.rotateIntermediate()
        let after = try waitForScreen(timeout: 20) { screen in
            screen.contains("LEAF ONLY \(rotating)") && (try? self.row(DashboardFleet.rotating, in: screen).contains("⚠ leaf_only")) == true
        }
        XCTAssertTrue(after.contains("LEAF ONLY \(fleet.displayName(DashboardFleet.stale))"), "the earlier alert stays: \(after)")
        XCTAssertNil(try XCTUnwrap(session).exitStatus(), "the same process kept running")
    }

    // MARK: Keys and resizing

    func testEnterOpensTheDetailAndEscReturns() throws {
        try startDashboard()
        let steady = fleet.displayName(DashboardFleet.steady)
        // The selection starts on the top row: worst first that is the down
        // host; in configuration order, the first configured one.
        try session?.send("s")
        try waitForScreen { $0.contains("config order") }
        try session?.send("Enter")
        let detail = try waitForScreen { $0.contains("detail: \(steady)") && $0.contains("subject") }
        XCTAssertTrue(detail.contains("CN=\(DashboardFleet.steady)"), detail)
        XCTAssertTrue(detail.contains(fleet.steadyLeafPin), "the leaf's SPKI digest: \(detail)")
        XCTAssertTrue(detail.contains("cert:"), detail)

        try session?.send("Escape")
        let table = try waitForScreen { !$0.contains("detail:") && $0.contains("LEAF ONLY") }
        for name in DashboardFleet.names {
            XCTAssertNoThrow(try row(name, in: table))
        }
    }

    func testTinyWindowAndBackKeepsWorking() throws {
        try startDashboard()
        try session?.resize(columns: 30, rows: 8)
        try waitForScreen { $0.contains("terminal too small") }
        try session?.resize(columns: 120, rows: 40)
        let restored = try waitForScreen { screen in
            !screen.contains("terminal too small") && DashboardFleet.names.allSatisfy { (try? self.row($0, in: screen)) != nil }
        }
        XCTAssertTrue(restored.contains("LEAF ONLY"), restored)
        try session?.send("q")
        try waitForScreen { $0.contains("EXITED:0") }
    }

    /// A hundred resizes in a row (a window being dragged): no crash, and
    /// the last size is the one laid out.
    func testHundredResizesEndInTheRightLayout() throws {
        try startDashboard()
        for step in 0..<100 {
            try session?.resize(columns: 40 + (step * 37) % 120, rows: 10 + (step * 13) % 35)
        }
        try session?.resize(columns: 100, rows: 30)
        // A frame painted for an earlier size can pass by on the way; the
        // wait ends at the 100×30 layout (footer on the 30th row) or fails.
        let final = try waitForScreen { screen in
            let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
            return DashboardFleet.names.allSatisfy { (try? self.row($0, in: screen)) != nil }
                && lines.count >= 30 && lines[29].contains("q quit")
        }
        XCTAssertEqual(final.split(separator: "\n").filter { $0.contains("q quit") }.count, 1, final)
        try session?.send("q")
        try waitForScreen { $0.contains("EXITED:0") }
    }

    // MARK: Leaving

    /// q steps back from details and help; Q and F10 quit from anywhere;
    /// F1 opens help.
    func testBackQuitAndHelpKeysAsAPersonPressesThem() throws {
        try startDashboard()
        try session?.send("Enter")
        try waitForScreen { $0.contains("detail:") && $0.contains("chain:") }
        try session?.send("q")
        try waitForScreen { screen in
            !screen.contains("detail:") && DashboardFleet.names.allSatisfy { screen.contains(self.fleet.displayName($0)) }
        }
        try session?.send("F1")
        try waitForScreen { $0.contains("┌ help — any key closes") }
        try session?.send("q")
        let table = try waitForScreen { !$0.contains("help — any key closes") && $0.contains("q quit") }
        XCTAssertFalse(table.contains("EXITED"), "q closed help, it did not quit")
        try session?.send("Enter")
        try waitForScreen { $0.contains("detail:") }
        try session?.send("F10")
        try assertRestored(status: "EXITED:0")
    }

    /// A short window: the footer says which rows are shown of how many.
    func testShortWindowSaysWhichRowsAreShown() throws {
        try startDashboard()
        // Header, banner, column titles and footer leave room for fewer rows than hosts.
        try session?.resize(columns: 120, rows: 9)
        let screen = try waitForScreen {
            $0.range(of: #"rows 1–\d+ of \#(DashboardFleet.names.count) · #1"#, options: .regularExpression) != nil
        }
        XCTAssertTrue(screen.contains("q quit"), screen)
        try session?.send("G")
        try waitForScreen { $0.contains("of \(DashboardFleet.names.count) · #\(DashboardFleet.names.count)") }
        try session?.send("q")
        try assertRestored(status: "EXITED:0")
    }

    /// `y` sends plain OSC 52, which tmux takes when set-clipboard is on:
    /// the stanza arrives in tmux's paste buffer, and the footer says what
    /// was sent rather than promising the clipboard.
    func testCopiedStanzaReachesTmuxAndTheFooterIsHonest() throws {
        try startDashboard()
        let session = try XCTUnwrap(session)
        try session.setGlobalOption("set-clipboard", "on")
        // The top row is the host that cannot be reached: the next has a chain.
        try session.send("j")
        try session.send("Enter")
        try waitForScreen { $0.contains("detail:") }
        try session.send("y")
        let screen = try waitForScreen { $0.contains("bytes sent as OSC 52") }
        XCTAssertTrue(screen.contains("copied only if the terminal allows it (tmux: set-clipboard on)"), screen)
        var buffer = ""
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            buffer = (try? session.newestPasteBuffer()) ?? ""
            if buffer.contains("hosts:") { break }
            usleep(100_000)
        }
        XCTAssertTrue(buffer.hasPrefix("hosts:\n"), "tmux got: \(buffer)")
        XCTAssertTrue(buffer.contains("sha256/"), buffer)
        try session.send("Q")
        try assertRestored(status: "EXITED:0")
    }

    /// The wheel moves the selection and a click selects the row under it,
    /// as xterm reports them (SGR mouse mode); the mode is off again after q.
    func testWheelAndClickSelectAndTheMouseModeEndsWithTheDashboard() throws {
        try startDashboard()
        let session = try XCTUnwrap(session)
        // Configuration order: rows stay put while the rotating host
        // changes status, so the screen clicked on is the screen shown.
        try session.send("s")
        let screen = try waitForScreen { $0.contains("sort config▼") }
        XCTAssertEqual(try session.paneVariable("mouse_any_flag") == "1" || session.paneVariable("mouse_button_flag") == "1", true)
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let target = try XCTUnwrap(lines.lastIndex { $0.contains(fleet.displayName(DashboardFleet.steady)) })
        // SGR reports are 1-based: column 10, the target's line.
        try session.type("\u{1B}[<0;10;\(target + 1)M\u{1B}[<0;10;\(target + 1)m")
        try session.send("Enter")
        try waitForScreen { $0.contains("detail: \(self.fleet.displayName(DashboardFleet.steady))") }
        try session.send("Escape")
        try session.send("g")
        // One notch down moves three rows: from the first row to the fourth.
        let order = try DashboardFleet.names.sorted { left, right in
            try XCTUnwrap(lines.firstIndex(of: try row(left, in: screen))) < XCTUnwrap(lines.firstIndex(of: try row(right, in: screen)))
        }
        try session.type("\u{1B}[<65;10;3M")
        try session.send("Enter")
        try waitForScreen { $0.contains("detail: \(self.fleet.displayName(order[3]))") }
        try session.send("Q")
        try assertRestored(status: "EXITED:0")
        XCTAssertEqual(try session.paneVariable("mouse_any_flag"), "0", "mouse reporting is off after the dashboard")
        XCTAssertEqual(try session.paneVariable("mouse_button_flag"), "0")
    }

    func testNoMouseLeavesTheMouseToTheTerminal() throws {
        try startDashboard(arguments: ["--no-mouse"])
        let session = try XCTUnwrap(session)
        XCTAssertEqual(try session.paneVariable("mouse_any_flag"), "0")
        XCTAssertEqual(try session.paneVariable("mouse_button_flag"), "0")
        try session.send("q")
        try assertRestored(status: "EXITED:0")
    }

    func testCapitalQQuitsFromTheDetailView() throws {
        try startDashboard()
        try session?.send("Enter")
        try waitForScreen { $0.contains("detail:") }
        try session?.send("Q")
        try assertRestored(status: "EXITED:0")
    }

    func testQuitExitsZeroAndRestoresTheTerminal() throws {
        try startDashboard()
        try session?.send("q")
        try assertRestored(status: "EXITED:0")
    }

    func testCtrlCExitsZeroAndRestoresTheTerminal() throws {
        try startDashboard()
        try session?.send("C-c")
        try assertRestored(status: "EXITED:0")
    }

    func testSIGTERMRestoresTheTerminalAndDiesOfIt() throws {
        try startDashboard()
        let pid = try XCTUnwrap(try session?.pinwatchProcess(), "the pane runs pinwatch")
        XCTAssertEqual(kill(pid, SIGTERM), 0)
        try assertRestored(status: "EXITED:\(128 + SIGTERM)")
    }

    func testWithoutATerminalExitsTwoPointingAtSnapshot() throws {
        let outcome = try PinwatchBinary.run(["watch", "--config", fleet.configURL.path], timeout: 20)
        XCTAssertEqual(outcome.status, 2)
        XCTAssertTrue(outcome.stderr.contains("snapshot"), outcome.stderr)
        XCTAssertFalse(outcome.stdout.contains("\u{1B}["), "nothing was drawn on a pipe")
    }

    func testWithoutAUTF8LocaleTheSymbolsStillDraw() throws {
        let screen = try startDashboard(environment: ["LANG": "", "LC_ALL": "", "LC_CTYPE": ""])
        let rotating = try row(DashboardFleet.rotating, in: screen)
        XCTAssertTrue(rotating.contains("✓ ok"), rotating)
        XCTAssertTrue(rotating.contains("L✓ I✓ R✗"), rotating)
    }

    // MARK: Helpers

    /// Opens the dashboard and waits until every host has a result.
    @discardableResult
    func startDashboard(
        environment: [String: String] = [:], arguments: [String] = [], file: StaticString = #filePath, line: UInt = #line
    ) throws -> String {
        // A crash reports at once instead of waiting 30 s for a debugger;
        // colours are under test, whatever NO_COLOR the runner has.
        let environment = environment.merging(["SWIFT_BACKTRACE": "interactive=no", "NO_COLOR": ""]) { _, new in new }
        let session = try TmuxSession(
            command: fleet.watchCommand(extraArguments: arguments), columns: 120, rows: 40, environment: environment)
        self.session = session
        return try waitForScreen(file: file, line: line) { screen in
            DashboardFleet.names.allSatisfy { name in
                guard let row = try? self.row(name, in: screen) else { return false }
                return !row.contains("waiting")
            }
        }
    }

    @discardableResult
    func waitForScreen(
        timeout: TimeInterval = 20, file: StaticString = #filePath, line: UInt = #line, _ predicate: (String) -> Bool
    ) throws -> String {
        let session = try XCTUnwrap(session, file: file, line: line)
        return try session.waitForScreen(timeout: timeout, file: file, line: line, predicate)
    }

    /// The table row of `name` (not its banner line).
    func row(_ name: String, in screen: String) throws -> String {
        let label = fleet.displayName(name)
        let banner = [
            "BLOCKED", "EXPIRED", "EXPIRING", "LEAF ONLY", "ERROR", "INTERCEPTED", "CRITICAL ×", "UNKNOWN ×", "WARNING ×", "detail:",
        ]
        guard
            let row = screen.split(separator: "\n").first(where: { line in
                line.contains(label) && !banner.contains { line.contains($0) }
            })
        else {
            throw DashboardTestError.noRow(label)
        }
        return String(row)
    }

    /// After the dashboard has gone: its exit line is on the normal screen,
    /// no alternate screen, the cursor visible, no dashboard text left over.
    private func assertRestored(status: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let screen = try waitForScreen(timeout: 10, file: file, line: line) { $0.contains("EXITED:") }
        XCTAssertTrue(screen.contains(status), screen, file: file, line: line)
        let session = try XCTUnwrap(session, file: file, line: line)
        XCTAssertEqual(try session.paneFormat("#{alternate_on}"), "0", "still on the alternate screen", file: file, line: line)
        XCTAssertEqual(try session.paneFormat("#{cursor_flag}"), "1", "the cursor is hidden", file: file, line: line)
        for name in DashboardFleet.names {
            XCTAssertFalse(screen.contains(name), "dashboard text left on the screen:\n\(screen)", file: file, line: line)
        }
    }
}

enum DashboardTestError: Error, CustomStringConvertible {
    case noRow(String)

    var description: String {
        switch self {
        case .noRow(let label): return "no table row for \(label)"
        }
    }
}
