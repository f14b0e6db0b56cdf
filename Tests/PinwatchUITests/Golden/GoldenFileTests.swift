import XCTest

/// What a golden mismatch says: the first line that differs, both
/// versions, escape sequences spelled out.
final class GoldenFileTests: XCTestCase {
    func testTheFirstDifferingLineIsShownInBothVersions() {
        let message = GoldenFile.firstDifference(expected: "a\nb\nc\n", actual: "a\nB\nc\n")
        XCTAssertEqual(message, "first difference at line 2 (of 4 golden, 4 rendered):\n  golden:   b\n  rendered: B")
    }

    func testAShorterOutputSaysWhereItEnds() {
        let message = GoldenFile.firstDifference(expected: "a\nb\n", actual: "a\n")
        XCTAssertEqual(message, "first difference at line 2 (of 3 golden, 2 rendered):\n  golden:   b\n  rendered: (empty line)")
        let cut = GoldenFile.firstDifference(expected: "a\nb", actual: "a")
        XCTAssertEqual(cut, "first difference at line 2 (of 2 golden, 1 rendered):\n  golden:   b\n  rendered: (end of output)")
    }

    func testEscapeSequencesAreSpelledOut() {
        let message = GoldenFile.firstDifference(expected: "\u{1B}[31mx\u{1B}[0m", actual: "\u{1B}[32mx\u{1B}[0m")
        XCTAssertTrue(message.hasSuffix("golden:   \\u{1b}[31mx\\u{1b}[0m\n  rendered: \\u{1b}[32mx\\u{1b}[0m"), message)
    }

    func testLineEndingsAloneAreNamed() {
        XCTAssertEqual(
            GoldenFile.firstDifference(expected: "a\r\n", actual: "a\n"),
            "first difference at line 1 (of 2 golden, 2 rendered):\n  golden:   a\\u{d}\n  rendered: a")
    }
}
