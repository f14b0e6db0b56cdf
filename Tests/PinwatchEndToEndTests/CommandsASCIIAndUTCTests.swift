import Foundation
import XCTest

/// `LANG=C` or `--ascii`: every glyph of `snapshot`, `check` and `inspect`
/// in ASCII; `--utc` or `utc: true`: times in UTC, and a local time always
/// names its zone.
final class CommandsASCIIAndUTCTests: LocalFleetTestCase {
    private static let cLocale = ["LANG": "C", "LC_ALL": "", "LC_CTYPE": ""]
    private static let utf8Locale = ["LANG": "C.UTF-8", "LC_ALL": "", "LC_CTYPE": ""]

    private func isASCII(_ text: String) -> Bool { text.unicodeScalars.allSatisfy(\.isASCII) }

    func testCLocaleAndAsciiFlagPrintOnlyASCII() throws {
        try fleet.addOK("ok.test")
        try fleet.addLeafOnly("leafonly.test")
        try fleet.addRefused("refused.test")
        try fleet.writeConfig()

        let glyphs = try fleet.run(["snapshot", "--format", "text", "--width", "200"], environment: Self.utf8Locale)
        XCTAssertTrue(glyphs.stdout.contains("✓ ok"), "a UTF-8 locale keeps the glyphs: \(glyphs.stdout)")
        for (arguments, environment) in [
            (["snapshot", "--format", "text", "--width", "200"], Self.cLocale),
            (["snapshot", "--format", "text", "--width", "200", "--ascii"], Self.utf8Locale),
        ] {
            let text = try fleet.run(arguments, environment: environment)
            XCTAssertEqual(text.status, 0, text.stderr)
            XCTAssertTrue(isASCII(text.stdout), "\(arguments) \(environment):\n\(text.stdout)")
            XCTAssertTrue(text.stdout.contains("+ ok"), text.stdout)
            XCTAssertTrue(text.stdout.contains("L+"), "a matched level: \(text.stdout)")
            XCTAssertTrue(text.stdout.contains("statusv"), "the sort arrow too: \(text.stdout)")
        }

        // A plugin's line that quotes the configuration: what a Nagios
        // daemon running plugins under LANG=C gets.
        try fleet.write("vantage: büro\nhosts: []\n", to: "vantage.yaml")
        let plainCheck = try fleet.run(["check", "--config", "vantage.yaml"], environment: Self.utf8Locale)
        XCTAssertTrue(plainCheck.stdout.contains("büro"), plainCheck.stdout)
        for (arguments, environment) in [
            (["check", "--config", "vantage.yaml"], Self.cLocale), (["check", "--ascii", "--config", "vantage.yaml"], Self.utf8Locale),
        ] {
            let check = try fleet.run(arguments, environment: environment)
            XCTAssertEqual(check.status, plainCheck.status, check.stderr)
            XCTAssertTrue(isASCII(check.stdout), "\(arguments) \(environment):\n\(check.stdout)")
            XCTAssertTrue(check.stdout.contains("b?ro"), check.stdout)
        }
    }

    func testInspectInACLocaleIsASCII() throws {
        let host = try fleet.addOK("ok.test")
        let arguments = ["inspect", "ok.test:\(host.port)", "--connect", "127.0.0.1", "--trust", fleet.trustURL.path]
        let glyphs = try fleet.run(arguments, environment: Self.utf8Locale)
        XCTAssertEqual(glyphs.status, 0, glyphs.stderr)
        XCTAssertFalse(isASCII(glyphs.stdout), "inspect has glyphs to replace: \(glyphs.stdout)")
        for (extra, environment) in [([], Self.cLocale), (["--ascii"], Self.utf8Locale)] {
            let ascii = try fleet.run(arguments + extra, environment: environment)
            XCTAssertEqual(ascii.status, 0, ascii.stderr)
            XCTAssertTrue(isASCII(ascii.stdout), ascii.stdout)
            XCTAssertTrue(ascii.stdout.contains("sha256/"), ascii.stdout)
        }
    }

    func testUTCFlagAndKeyShowTimesInUTCAndLocalTimesNameTheirZone() throws {
        try fleet.addOK("ok.test")
        try fleet.writeConfig()
        let tokyo = Self.utf8Locale.merging(["TZ": "Asia/Tokyo"]) { $1 }
        let local = try fleet.run(["snapshot", "--format", "text", "--width", "200"], environment: tokyo)
        XCTAssertTrue(local.stdout.contains(" GMT+9") || local.stdout.contains(" JST"), "a local time names its zone: \(local.stdout)")
        let flagged = try fleet.run(["snapshot", "--format", "text", "--width", "200", "--utc"], environment: tokyo)
        XCTAssertTrue(flagged.stdout.contains(" UTC"), flagged.stdout)
        XCTAssertFalse(flagged.stdout.contains("GMT+9") || flagged.stdout.contains("JST"), flagged.stdout)

        try fleet.writeConfig(settings: ["utc: true"])
        let configured = try fleet.run(["snapshot", "--format", "text", "--width", "200"], environment: tokyo)
        XCTAssertEqual(configured.status, 0, configured.stderr)
        XCTAssertTrue(configured.stdout.contains(" UTC"), configured.stdout)
        XCTAssertFalse(configured.stdout.contains("GMT+9") || configured.stdout.contains("JST"), configured.stdout)

        try fleet.writeConfig(settings: ["utc: maybe"])
        let refused = try fleet.run(["validate"], environment: tokyo)
        XCTAssertEqual(refused.status, 2, refused.stdout + refused.stderr)
        XCTAssertTrue((refused.stdout + refused.stderr).contains("utc"), refused.stdout + refused.stderr)
    }
}
