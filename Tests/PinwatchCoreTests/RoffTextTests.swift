import XCTest

@testable import PinwatchCore

/// Text bound for the manual page: nothing in it may become a roff request,
/// and no raw non-ASCII byte may reach an ASCII terminal.
final class RoffTextTests: XCTestCase {
    func testRequestsAndEscapesInTextStayText() {
        XCTAssertEqual(RoffText.line(".Sh EVIL"), "\\&.Sh EVIL")
        XCTAssertEqual(RoffText.line("'br"), "\\&'br")
        XCTAssertEqual(RoffText.line("C:\\path\\fB"), "C:\\epath\\efB")
        XCTAssertEqual(RoffText.line("one\n.Sh TWO"), "one .Sh TWO")
    }

    func testEveryLineOfAWrappedParagraphIsGuarded() {
        let lines = RoffText.paragraphs("First sentence here. .Ex starts a sentence\n\nSecond paragraph", width: 20)
        XCTAssertEqual(lines.filter { $0 == ".Pp" }.count, 1, "\(lines)")
        for line in lines where line != ".Pp" {
            XCTAssertFalse(line.hasPrefix(".") || line.hasPrefix("'"), "\(lines)")
        }
        XCTAssertTrue(lines.contains("First sentence here."), "a sentence starts its own line: \(lines)")
    }

    func testNonASCIIBecomesGlyphsWithASCIIStandIns() {
        XCTAssertEqual(RoffText.line("0 ≤ I — ↑/↓"), "0 \\(<= I \\(em \\(ua/\\(da")
        let marks = RoffText.line("✓ ok ✗ no ✓")
        XCTAssertEqual(marks, "\\[u2713] ok \\[u2717] no \\[u2713]")
        XCTAssertEqual(
            RoffText.glyphFallbacks(for: marks),
            [".if n .if !c\\[u2713] .char \\[u2713] v", ".if n .if !c\\[u2717] .char \\[u2717] x"])
        XCTAssertTrue(RoffText.line("日本").unicodeScalars.allSatisfy(\.isASCII))
    }
}
