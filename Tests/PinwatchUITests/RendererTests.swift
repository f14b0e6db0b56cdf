import XCTest

@testable import PinwatchUI

final class RendererTests: XCTestCase {
    func testTextOutputHasNoEscapeAndNoTrailingSpaces() {
        let frame = DashboardLayout.snapshotFrame(for: Fixture.mixedState(), width: 100, now: Fixture.now)
        let text = TextRenderer.render(frame)
        XCTAssertFalse(text.contains("\u{1B}"))
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            XCTAssertFalse(line.hasSuffix(" "), "trailing space: \(line)")
        }
        XCTAssertEqual(text.filter { $0 == "\n" }.count, frame.height)
        XCTAssertTrue(text.contains("charlie.example:443"))
    }

    func testANSIOutputHasTheRoleColoursOfTheDefaultTheme() {
        let frame = DashboardLayout.snapshotFrame(for: Fixture.mixedState(), width: 100, now: Fixture.now)
        let ansi = ANSIRenderer.render(frame, theme: ThemeLoader.builtInDefault)
        XCTAssertTrue(ansi.contains("\u{1B}[0;32mL"), "leaf green")
        XCTAssertTrue(ansi.contains("\u{1B}[0;1;34mI"), "intermediate blue (bold)")
        XCTAssertTrue(ansi.contains("\u{1B}[0;31mR"), "root red")
        for line in ansi.split(separator: "\n") {
            XCTAssertTrue(line.hasSuffix("\u{1B}[0m"), "every line ends with a reset")
        }
        // Without the escape sequences it is the text rendering.
        let stripped = ansi.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression)
        let text = TextRenderer.render(frame)
        XCTAssertEqual(
            stripped.split(separator: "\n").map { $0.replacingOccurrences(of: " +$", with: "", options: .regularExpression) },
            text.split(separator: "\n").map(String.init))
    }

    func testANSIUsesExtendedCodesForRGBAndMonoHasNoColour() {
        var frame = Frame(width: 4, height: 1)
        frame.put("ab", row: 0, column: 0, style: Style(.leaf))
        let colorblind = Theme(name: "cb", roles: [.leaf: RoleAppearance(foreground: .rgb(red: 0x56, green: 0xb4, blue: 0xe9))])
        XCTAssertEqual(ANSIRenderer.render(frame, theme: colorblind), "\u{1B}[0;38;5;74mab\u{1B}[0m\n")
        XCTAssertEqual(ANSIRenderer.render(frame, theme: colorblind, colorCount: 16), "\u{1B}[0;94mab\u{1B}[0m\n", "sky blue → bright blue")
        let monoOutput = ANSIRenderer.render(
            DashboardLayout.snapshotFrame(for: Fixture.mixedState(), width: 100, now: Fixture.now), theme: ThemeLoader.mono)
        XCTAssertNil(monoOutput.range(of: "\u{1B}\\[[0-9;]*;(3|4|9|10)[0-9](;|m)", options: .regularExpression))
        XCTAssertTrue(monoOutput.contains("\u{1B}[0;1;7m"), "mono still marks the header with attributes")
    }
}
