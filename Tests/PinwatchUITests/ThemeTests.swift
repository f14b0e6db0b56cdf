import Foundation
import XCTest

@testable import PinwatchUI

final class ThemeTests: XCTestCase {
    private static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    private let themesDirectory = ThemeTests.packageRoot.appendingPathComponent("themes").path

    func testGoodThemeParses() throws {
        let yaml = """
            name: custom
            roles:
              leaf: { fg: green, attributes: [bold] }
              root: { fg: 196, bg: "#000000" }
              selected: { attributes: [reverse, underline] }
            """
        let theme = try ThemeLoader.parse(yaml: yaml, file: "custom.yaml")
        XCTAssertEqual(theme.name, "custom")
        XCTAssertEqual(theme.roles[.leaf], RoleAppearance(foreground: .indexed(2), bold: true))
        XCTAssertEqual(theme.roles[.root], RoleAppearance(foreground: .indexed(196), background: .rgb(red: 0, green: 0, blue: 0)))
        XCTAssertEqual(theme.roles[.selected], RoleAppearance(reverse: true, underline: true))
    }

    func testBadColourIsAnErrorWithItsLine() {
        let yaml = """
            name: broken
            roles:
              leaf: { fg: green }
              intermediate: { fg: bleu }
            """
        XCTAssertThrowsError(try ThemeLoader.parse(yaml: yaml, file: "broken.yaml")) { error in
            guard let error = error as? ThemeError else { return XCTFail("\(error)") }
            XCTAssertEqual(error.file, "broken.yaml")
            XCTAssertEqual(error.line, 4)
            XCTAssertTrue(error.description.hasPrefix("broken.yaml:4: roles.intermediate.fg: unknown colour `bleu`"), error.description)
        }
    }

    func testOtherMistakesNameTheirLine() {
        let cases: [(String, Int, String)] = [
            ("name: x\nroles:\n  leafy: { fg: red }\n", 3, "unknown role `leafy`"),
            ("name: x\ncolours: {}\n", 2, "unknown key `colours`"),
            ("name: x\nroles:\n  leaf: { fg: red, blink: true }\n", 3, "unknown key `blink`"),
            ("name: x\nroles:\n  leaf: { attributes: [bold, blink] }\n", 3, "unknown attribute `blink`"),
            ("name: x\nroles:\n  leaf: { fg: 256 }\n", 3, "unknown colour `256`"),
            ("name: x\nroles: [\n", 3, "not valid YAML"),
        ]
        for (yaml, line, message) in cases {
            XCTAssertThrowsError(try ThemeLoader.parse(yaml: yaml, file: "t.yaml")) { error in
                let themeError = error as? ThemeError
                XCTAssertEqual(themeError?.line, line, "\(yaml) → \(error)")
                XCTAssertTrue(String(describing: error).contains(message), "\(error)")
            }
        }
    }

    func testRGBMapsToTheNearestPaletteEntry() {
        XCTAssertEqual(TerminalColor(parsing: "#ff0000")?.paletteIndex(colorCount: 256), 196)
        XCTAssertEqual(TerminalColor(parsing: "#808080")?.paletteIndex(colorCount: 256), 244)
        XCTAssertEqual(TerminalColor(parsing: "#5fafd7")?.paletteIndex(colorCount: 256), 74)
        XCTAssertEqual(TerminalColor(parsing: "#0000f0")?.paletteIndex(colorCount: 8), 4)
        XCTAssertEqual(TerminalColor(parsing: "#ff1010")?.paletteIndex(colorCount: 16), 9)
        XCTAssertEqual(TerminalColor(parsing: "#ff1010")?.paletteIndex(colorCount: 8), 1)
        XCTAssertEqual(TerminalColor.indexed(196).paletteIndex(colorCount: 8), 1, "a 256-colour index degrades too")
        XCTAssertNil(TerminalColor.indexed(2).paletteIndex(colorCount: 0))
        XCTAssertNil(TerminalColor(parsing: "#12345"))
        XCTAssertNil(TerminalColor(parsing: "#gg0000"))
    }

    func testAllShippedThemesLoad() throws {
        for name in ["default", "mono", "high-contrast", "colorblind"] {
            let path = (themesDirectory as NSString).appendingPathComponent(name + ".yaml")
            let theme = try ThemeLoader.load(nameOrPath: path, currentDirectory: "/", environment: [:], executablePath: nil)
            XCTAssertEqual(theme.name, name)
            for role in [StyleRole.leaf, .intermediate, .root, .ok, .warn, .critical, .error, .selected] {
                XCTAssertNotNil(theme.roles[role], "\(name) lacks \(role)")
            }
        }
    }

    func testBuiltInThemesEqualTheShippedFiles() throws {
        let directory = ThemeTests.packageRoot.path
        let fromFile = try ThemeLoader.load(nameOrPath: "default", currentDirectory: directory, environment: [:], executablePath: nil)
        XCTAssertEqual(fromFile, ThemeLoader.builtInDefault)
        let mono = try ThemeLoader.load(nameOrPath: "mono", currentDirectory: directory, environment: [:], executablePath: nil)
        XCTAssertEqual(mono, ThemeLoader.mono)
        for (name, yaml) in BuiltInThemes.all {
            let shipped = try ThemeLoader.load(nameOrPath: name, currentDirectory: directory, environment: [:], executablePath: nil)
            XCTAssertEqual(try ThemeLoader.parse(yaml: yaml, file: "\(name).yaml"), shipped, "\(name): built-in copy differs from themes/")
        }
        XCTAssertEqual(ThemeLoader.builtInDefault.roles[.leaf]?.foreground, .indexed(2), "leaf green (DESIGN §2)")
        XCTAssertEqual(ThemeLoader.builtInDefault.roles[.intermediate]?.foreground, .indexed(4), "intermediate blue")
        XCTAssertEqual(ThemeLoader.builtInDefault.roles[.root]?.foreground, .indexed(1), "root red")
    }

    /// From a directory without `themes/`, every theme name (and the
    /// example config's spelling) still loads, and `t` cycles all four.
    func testEveryThemeWorksFromAnyDirectory() throws {
        let nowhere = FileManager.default.temporaryDirectory.appendingPathComponent("pinwatch-nothemes-\(UUID().uuidString)").path
        for name in ["default", "mono", "high-contrast", "colorblind", "colour-blind", "color-blind"] {
            let theme = try ThemeLoader.load(nameOrPath: name, currentDirectory: nowhere, environment: [:], executablePath: nil)
            XCTAssertFalse(theme.roles.isEmpty, name)
        }
        XCTAssertEqual(
            try ThemeLoader.load(nameOrPath: "colour-blind", currentDirectory: nowhere, environment: [:], executablePath: nil).name,
            "colorblind")
        XCTAssertEqual(
            ThemeLoader.availableNames(currentDirectory: nowhere, environment: [:], executablePath: nil),
            ["default", "colorblind", "high-contrast", "mono"])
    }

    /// No theme may draw a selected cell in its own background colour
    /// (high-contrast drew the selected leaf_only row yellow on yellow).
    func testNoSelectedCellHasEqualForegroundAndBackground() throws {
        for (name, yaml) in BuiltInThemes.all {
            let theme = try ThemeLoader.parse(yaml: yaml, file: name)
            for role in StyleRole.allCases {
                for bold in [false, true] {
                    let look = theme.appearance(for: Style(role, bold: bold, selected: true))
                    if look.foreground != .terminalDefault {
                        XCTAssertNotEqual(look.foreground, look.background, "\(name): selected \(role)")
                    }
                }
            }
        }
    }

    func testMonoHasNoColours() {
        for look in ThemeLoader.mono.roles.values {
            XCTAssertEqual(look.foreground, .terminalDefault)
            XCTAssertEqual(look.background, .terminalDefault)
        }
    }

    func testLookupOrderAndBuiltInFallback() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("pinwatch-theme-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let project = scratch.appendingPathComponent("project")
        let xdg = scratch.appendingPathComponent("xdg")
        let install = scratch.appendingPathComponent("prefix")
        for directory in [
            project.appendingPathComponent("themes"), xdg.appendingPathComponent("pinwatch/themes"),
            install.appendingPathComponent("share/pinwatch/themes"), install.appendingPathComponent("bin"),
        ] {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        func write(_ name: String, to directory: URL) throws {
            try "name: \(name)\nroles:\n  leaf: { fg: green }\n".write(
                to: directory.appendingPathComponent("shared.yaml"), atomically: true, encoding: .utf8)
        }
        let executable = install.appendingPathComponent("bin/pinwatch").path
        let environment = ["XDG_CONFIG_HOME": xdg.path]
        func load(_ name: String) throws -> Theme {
            try ThemeLoader.load(nameOrPath: name, currentDirectory: project.path, environment: environment, executablePath: executable)
        }
        try write("installed", to: install.appendingPathComponent("share/pinwatch/themes"))
        XCTAssertEqual(try load("shared").name, "installed")
        try write("user", to: xdg.appendingPathComponent("pinwatch/themes"))
        XCTAssertEqual(try load("shared").name, "user")
        try write("project", to: project.appendingPathComponent("themes"))
        XCTAssertEqual(try load("shared").name, "project")
        XCTAssertEqual(try load("default"), ThemeLoader.builtInDefault, "built in when no file exists")
        XCTAssertEqual(try load("mono"), ThemeLoader.mono)
        XCTAssertThrowsError(try load("nope")) { error in
            XCTAssertTrue(String(describing: error).contains("nope.yaml"))
        }
        let names = ThemeLoader.availableNames(currentDirectory: project.path, environment: environment, executablePath: executable)
        XCTAssertEqual(names, ["default", "colorblind", "high-contrast", "mono", "shared"])
        XCTAssertEqual(ThemeLoader.nextName(after: "default", in: names), "colorblind")
        XCTAssertEqual(ThemeLoader.nextName(after: "shared", in: names), "default")
        XCTAssertEqual(ThemeLoader.nextName(after: "unknown", in: names), "default")
    }

    func testBadThemeFileIsAnErrorNamingTheFile() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pinwatch-bad-\(UUID().uuidString).yaml")
        defer { try? FileManager.default.removeItem(at: file) }
        try "name: bad\nroles:\n  root: { fg: \"#12\" }\n".write(to: file, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try ThemeLoader.load(nameOrPath: file.path, currentDirectory: "/", environment: [:], executablePath: nil)) {
            error in
            XCTAssertEqual(String(describing: error).prefix(file.path.count + 3), "\(file.path):3:")
        }
    }

    func testNoColorSelectsMono() {
        XCTAssertTrue(ThemeLoader.prefersMono(environment: ["NO_COLOR": "1"], colorCount: 256))
        XCTAssertFalse(ThemeLoader.prefersMono(environment: ["NO_COLOR": ""], colorCount: 256), "empty NO_COLOR does not count")
        XCTAssertTrue(ThemeLoader.prefersMono(environment: [:], colorCount: 0))
        XCTAssertFalse(ThemeLoader.prefersMono(environment: [:], colorCount: 8))
    }

    func testSelectionBarLaysOverTheRole() {
        let theme = ThemeLoader.builtInDefault
        let look = theme.appearance(for: Style(.leaf, selected: true))
        XCTAssertEqual(look.foreground, .indexed(2))
        XCTAssertTrue(look.reverse)
        XCTAssertTrue(theme.appearance(for: Style(.normal, bold: true)).bold)
    }
}
