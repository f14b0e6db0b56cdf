import PinwatchCore
import XCTest

@testable import PinwatchUI

final class FrameTests: XCTestCase {
    func testTextThatFitsIsWrittenAsIs() {
        var frame = Frame(width: 10, height: 1)
        XCTAssertEqual(frame.put("hello", row: 0, column: 2), 5)
        XCTAssertEqual(frame.text(ofRow: 0), "  hello   ")
    }

    func testTooLongTextEndsWithEllipsis() {
        var frame = Frame(width: 8, height: 1)
        XCTAssertEqual(frame.put("abcdefghijkl", row: 0, column: 0), 8)
        XCTAssertEqual(frame.text(ofRow: 0), "abcdefg…")
        var limited = Frame(width: 20, height: 1)
        limited.put("abcdefghijkl", row: 0, column: 1, maxWidth: 5)
        XCTAssertEqual(limited.text(ofRow: 0), " abcd…" + String(repeating: " ", count: 14))
    }

    func testWideCharactersTakeTwoCellsAndAreNeverSplit() {
        var frame = Frame(width: 6, height: 1)
        frame.put("日本語テスト", row: 0, column: 0)
        // 5 cells of budget: two ideographs (4 cells), the third would straddle the limit.
        XCTAssertEqual(frame[0, 0].text, "日")
        XCTAssertEqual(frame[0, 1].text, "")
        XCTAssertEqual(frame[0, 2].text, "本")
        XCTAssertEqual(frame[0, 3].text, "")
        XCTAssertEqual(frame[0, 4].text, "…")
        XCTAssertEqual(frame[0, 5].text, " ")
        XCTAssertEqual(DisplayWidth.of(frame.text(ofRow: 0)), 6)
    }

    func testEmojiAndCombiningMarks() {
        XCTAssertEqual(DisplayWidth.of("🔒"), 2)
        XCTAssertEqual(DisplayWidth.of("🇩🇪"), 2)
        XCTAssertEqual(DisplayWidth.of("e\u{301}"), 1)
        XCTAssertEqual(DisplayWidth.of("한국"), 4)
        XCTAssertEqual(DisplayWidth.of("ｆｕｌｌ"), 8)
        var frame = Frame(width: 10, height: 1)
        frame.put("cafe\u{301}🔒x", row: 0, column: 0)
        XCTAssertEqual(frame[0, 3].text, "e\u{301}")
        XCTAssertEqual(frame[0, 4].text, "🔒")
        XCTAssertEqual(frame[0, 5].text, "")
        XCTAssertEqual(frame[0, 6].text, "x")
    }

    func testOverwritingHalfAWideCharacterBlanksTheOtherHalf() {
        var frame = Frame(width: 6, height: 1)
        frame.put("日本", row: 0, column: 0)
        frame.put("x", row: 0, column: 1)
        XCTAssertEqual(frame[0, 0].text, " ")
        XCTAssertEqual(frame[0, 1].text, "x")
        frame.put("y", row: 0, column: 2)
        XCTAssertEqual(frame[0, 2].text, "y")
        XCTAssertEqual(frame[0, 3].text, " ")
    }

    func testControlCharactersAreSanitisedAtPut() {
        var frame = Frame(width: 40, height: 1)
        frame.put("CN=evil\u{1B}]52;c;AAAA\u{07}\u{1B}[2J", row: 0, column: 0)
        let text = frame.text(ofRow: 0)
        XCTAssertFalse(text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        XCTAssertTrue(text.hasPrefix("CN=evil\u{FFFD}]52;c;AAAA\u{FFFD}\u{FFFD}[2J"))
    }

    func testWritesOutsideTheFrameAreIgnored() {
        var frame = Frame(width: 3, height: 2)
        XCTAssertEqual(frame.put("x", row: 5, column: 0), 0)
        XCTAssertEqual(frame.put("x", row: 0, column: 3), 0)
        XCTAssertEqual(frame.put("x", row: -1, column: 0), 0)
        XCTAssertEqual(Frame(width: 0, height: 0).cells.count, 0)
    }
}
