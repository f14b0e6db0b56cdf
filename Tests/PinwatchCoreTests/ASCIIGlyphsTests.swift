import PinwatchCore
import XCTest

final class ASCIIGlyphsTests: XCTestCase {
    func testEveryGlyphHasAOneCharacterASCIIStandIn() {
        XCTAssertEqual(ASCIIGlyphs.transliterate("✓ ok  L✓ I✗ R·  ⚠ leaf_only  ○ unpinned"), "+ ok  L+ Ix R.  ! leaf_only  o unpinned")
        XCTAssertEqual(
            ASCIIGlyphs.transliterate("┌─ help ─┐│└┘ status▼ days▲ ↑↓ ⇄ a → b — “x” 5…"),
            "+- help -+|++ statusv days^ ^v = a > b - \"x\" 5~")
        XCTAssertEqual(ASCIIGlyphs.transliterate("Ωmega"), "?mega", "text with no stand-in shows as ?, one for one")
        XCTAssertEqual(ASCIIGlyphs.transliterate("plain"), "plain")
    }

    func testOnlyASetLocaleThatIsNotUTF8IsASCII() {
        XCTAssertTrue(ASCIIGlyphs.localeIsASCII(["LANG": "C"]))
        XCTAssertTrue(ASCIIGlyphs.localeIsASCII(["LANG": "POSIX"]))
        XCTAssertTrue(ASCIIGlyphs.localeIsASCII(["LANG": "en_US.UTF-8", "LC_ALL": "C"]), "LC_ALL wins")
        XCTAssertTrue(ASCIIGlyphs.localeIsASCII(["LANG": "en_US.UTF-8", "LC_CTYPE": "de_DE.ISO-8859-1"]))
        XCTAssertFalse(ASCIIGlyphs.localeIsASCII(["LANG": "C", "LC_CTYPE": "C.utf8"]), "LC_CTYPE before LANG")
        XCTAssertFalse(ASCIIGlyphs.localeIsASCII(["LANG": "en_GB.UTF-8"]))
        XCTAssertFalse(ASCIIGlyphs.localeIsASCII([:]), "nothing set: the glyphs stay, as the dashboard always drew them")
        XCTAssertFalse(ASCIIGlyphs.localeIsASCII(["LANG": "", "LC_ALL": ""]))
    }
}
