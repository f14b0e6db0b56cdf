import XCTest

@testable import PinwatchUI

/// SVG/HTML colours: bold brightens as on a terminal, and every pair a
/// built-in theme can draw reads at WCAG's 4.5:1 or better.
final class PictureContrastTests: XCTestCase {
    private func themes() throws -> [Theme] {
        try BuiltInThemes.all.map { try ThemeLoader.parse(yaml: $0.yaml, file: $0.name) }
    }

    func testEveryPairOfEveryBuiltInThemeIsAtLeastFourAndAHalfToOne() throws {
        var checked = 0
        for theme in try themes() {
            for role in StyleRole.allCases {
                for bold in [false, true] {
                    for selected in [false, true] {
                        let look = theme.appearance(for: Style(role, bold: bold, selected: selected))
                        let pair = PictureColors.pair(for: look)
                        let ratio = PictureColors.contrast(pair.foreground, pair.background ?? PictureColors.defaultBackground)
                        XCTAssertGreaterThanOrEqual(
                            ratio, 4.5, "\(theme.name) \(role) bold=\(bold) selected=\(selected): \(PictureColors.hex(pair.foreground))")
                        checked += 1
                    }
                }
            }
        }
        XCTAssertEqual(checked, 4 * StyleRole.allCases.count * 4)
    }

    func testTheRendererDrawsTheComputedColours() throws {
        let theme = ThemeLoader.builtInDefault
        var frame = Frame(width: 20, height: 1)
        frame.put("blue", row: 0, column: 0, style: Style(.intermediate))
        let svg = PictureRenderer.svg(frame, theme: theme)
        let expected = PictureColors.hex(PictureColors.pair(for: theme.appearance(for: Style(.intermediate))).foreground)
        XCTAssertTrue(svg.contains("fill=\"\(expected)\""), svg)
        XCTAssertFalse(svg.contains("fill=\"#0000ee\""), "xterm's blue is 2:1 on the picture's background")
    }

    func testBoldBrightensTheEightBaseColoursAsTerminalsDo() {
        XCTAssertEqual(PictureColors.hex(PictureColors.rgb(.indexed(3), bold: true)!), "#ffff00", "bold yellow is bright yellow")
        XCTAssertEqual(PictureColors.hex(PictureColors.rgb(.indexed(3), bold: false)!), "#cdcd00")
        XCTAssertEqual(PictureColors.hex(PictureColors.rgb(.indexed(11), bold: true)!), "#ffff00", "already bright")
        XCTAssertEqual(PictureColors.hex(PictureColors.rgb(.indexed(208), bold: true)!), "#ff8700", "the 256 palette has no bright half")
        // The default theme's warning is bold yellow: bright on the picture, as in the terminal.
        let warn = PictureColors.pair(for: ThemeLoader.builtInDefault.appearance(for: Style(.warn)))
        XCTAssertEqual(PictureColors.hex(warn.foreground), "#ffff00")
    }

    func testContrastMatchesWCAGsFigures() {
        XCTAssertEqual(PictureColors.contrast((0, 0, 0), (255, 255, 255)), 21, accuracy: 0.001)
        XCTAssertEqual(PictureColors.contrast((119, 119, 119), (255, 255, 255)), 4.48, accuracy: 0.01)
        XCTAssertEqual(PictureColors.contrast((10, 20, 30), (10, 20, 30)), 1, accuracy: 0.001)
    }

    func testHighContrastSelectionDrawsEveryCellInTheBarsForeground() throws {
        let theme = try XCTUnwrap(try themes().first { $0.name == "high-contrast" })
        let bar = try XCTUnwrap(theme.roles[.selected])
        for role in StyleRole.allCases where role != .selected {
            for bold in [false, true] {
                let look = theme.appearance(for: Style(role, bold: bold, selected: true))
                XCTAssertEqual(look.foreground, bar.foreground, "selected \(role) bold=\(bold)")
                XCTAssertEqual(look.background, bar.background, "selected \(role) bold=\(bold)")
            }
        }
        // A bar without colours of its own (reverse) keeps the roles' colours.
        XCTAssertEqual(ThemeLoader.builtInDefault.appearance(for: Style(.leaf, selected: true)).foreground, .indexed(2))
    }
}
