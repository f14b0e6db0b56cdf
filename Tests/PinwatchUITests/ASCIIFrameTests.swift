import PinwatchCore
import XCTest

@testable import PinwatchUI

/// `--ascii` / a C locale: the dashboard and its snapshot without one
/// non-ASCII cell, columns where they were.
final class ASCIIFrameTests: XCTestCase {
    func testEveryScreenIsASCIIWithTheSameLayout() {
        var state = Fixture.mixedState()
        state.filter = "!zzz"
        let unicode = DashboardLayout.frame(for: state, width: 100, height: 30, now: Fixture.now)
        state.asciiOnly = true
        var screens: [Frame] = [DashboardLayout.frame(for: state, width: 100, height: 30, now: Fixture.now)]
        XCTAssertTrue(Fixture.text(unicode).unicodeScalars.contains { !$0.isASCII }, "the fixture has glyphs to replace")
        state.view = .help
        screens.append(DashboardLayout.frame(for: state, width: 100, height: 30, now: Fixture.now))
        state.view = .detail(hostIndex: 1)
        screens.append(DashboardLayout.frame(for: state, width: 100, height: 30, now: Fixture.now))
        state.view = .table
        screens.append(DashboardLayout.snapshotFrame(for: state, width: 100, now: Fixture.now))
        for frame in screens {
            let text = Fixture.text(frame)
            XCTAssertTrue(text.unicodeScalars.allSatisfy(\.isASCII), text)
        }
        let table = Fixture.lines(screens[0])
        XCTAssertTrue(table.contains { $0.contains("+ ok") && $0.contains("alpha.example") }, table.joined(separator: "\n"))
        XCTAssertTrue(table.contains { $0.contains("x blocked") }, table.joined(separator: "\n"))
        XCTAssertTrue(Fixture.lines(screens[1]).contains { $0.contains("+-") }, "the help box in ASCII")
        XCTAssertEqual(
            Fixture.lines(unicode).map { $0.count }, table.map { $0.count }, "one character for one: the columns stay")
    }

    func testAWideCharacterBecomesTwoQuestionMarks() {
        var frame = Frame(width: 6, height: 1)
        frame.put("a漢b", row: 0, column: 0)
        frame.useASCIIOnly()
        XCTAssertEqual(frame.text(ofRow: 0), "a??b  ")
    }
}
