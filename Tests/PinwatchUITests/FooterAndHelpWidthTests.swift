import PinwatchCore
import XCTest

@testable import PinwatchUI

/// The footer keeps its way to the other keys on a standard terminal, and
/// the help box is as wide as its text needs.
final class FooterAndHelpWidthTests: XCTestCase {
    private func lastLine(_ state: DashboardState, width: Int, height: Int) -> String {
        Fixture.lines(DashboardLayout.frame(for: state, width: width, height: height, now: Fixture.now)).last ?? ""
    }

    func testEightyColumnsKeepHelpAndQuitAndDropWholeKeys() {
        var state = Fixture.mixedState()
        state.clients = [(name: "ios 7.0", format: .trustkit)]
        for (width, height) in [(80, 24), (80, 10), (60, 24)] {
            let footer = lastLine(state, width: width, height: height)
            XCTAssertTrue(footer.contains("? help"), "\(width)×\(height): \(footer)")
            XCTAssertTrue(footer.contains("q quit"), "\(width)×\(height): \(footer)")
            // A key is shown whole or not at all.
            XCTAssertFalse(footer.hasSuffix("the") || footer.hasSuffix("sor"), footer)
        }
        XCTAssertTrue(lastLine(state, width: 80, height: 10).contains("rows 1–"), "the position stays with the keys")
        let wide = lastLine(state, width: 200, height: 24)
        for key in ["r refresh", "↑↓ move", "Enter detail", "/ filter", "s<>I sort", "t theme", "? help", "c clients"] {
            XCTAssertTrue(wide.contains(key), "every key when there is room: \(wide)")
        }
        state.view = .detail(hostIndex: 1)
        let detail = lastLine(state, width: 60, height: 24)
        XCTAssertTrue(detail.contains("Esc/q back") && detail.contains("? help") && detail.contains("Q quit"), detail)
    }

    func testTheHelpBoxIsAsWideAsItsLongestEntryNotFifty() {
        var state = Fixture.mixedState()
        _ = state.handle(.character("?"))
        for (width, height) in [(200, 40), (80, 40)] {
            let text = Fixture.text(DashboardLayout.frame(for: state, width: width, height: height, now: Fixture.now))
            for (key, description) in HelpLayout.entries {
                XCTAssertTrue(text.contains(description), "\(width) columns: \(key) reads “\(description)” whole\n\(text)")
            }
        }
        XCTAssertEqual(HelpLayout.boxWidth(screenWidth: 50), 48, "a narrow screen bounds it")
    }
}

/// The detail view's validity under ten days gives the hours the whole
/// days leave out.
final class DetailHoursTests: XCTestCase {
    func testALeafWithEightDaysAndAnHourLeftSaysSo() {
        let host = Fixture.host("soon.example")
        var state = DashboardState(configPath: "c.yaml", hosts: [host], timeZone: Fixture.utc)
        state.record(Fixture.report(for: host, status: .ok, leafDays: 8), forHost: 0, at: Fixture.now)
        state.view = .detail(hostIndex: 0)
        let text = Fixture.text(DashboardLayout.frame(for: state, width: 160, height: 60, now: Fixture.now))
        XCTAssertTrue(text.contains("(8 d 1 h left)"), text)
        XCTAssertTrue(text.contains("(3000 days left)"), "whole days above ten: \(text)")
    }
}
