import XCTest

@testable import PinwatchCore

final class JSONBytesTests: XCTestCase {
    /// Every byte value at every position: only printable ASCII other than
    /// `"` and `\` is copied without escaping.
    func testPlainASCIIAgreesWithTheByteRuleEverywhere() {
        func plain(_ byte: UInt8) -> Bool { byte >= 0x20 && byte < 0x7F && byte != 0x22 && byte != 0x5C }
        for length in [1, 7, 8, 9, 16, 19] {
            for position in 0..<length {
                for value in UInt8.min...UInt8.max {
                    var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    bytes[position] = value
                    let verdict = JSONBytes.isPlainASCII(bytes.span)
                    XCTAssertEqual(verdict, plain(value), "byte \(value) at \(position) of \(length)")
                }
            }
        }
        // Neighbours of the excluded values.
        for pair: [UInt8] in [[0x00, 0x01], [0x20, 0x1F], [0x21, 0x22], [0x5B, 0x5C], [0x7E, 0x7F], [0x7F, 0x00]] {
            let bytes = [UInt8](repeating: 0x41, count: 6) + pair
            XCTAssertFalse(JSONBytes.isPlainASCII(bytes.span), "\(pair)")
        }
        let empty: [UInt8] = []
        XCTAssertTrue(JSONBytes.isPlainASCII(empty.span))
    }

    func testStringsNeedingNoEscapeAreCopiedAndOthersEscaped() {
        let out = JSONBytes()
        out.append(string: "sha256/AAAA+/=")
        out.append(string: "tab\there \"q\" back\\slash \u{7F}")
        XCTAssertEqual(out.text, #""sha256/AAAA+/=""tab\u0009here \"q\" back\\slash \u007f""#)
    }

    /// Fixed-point shares and lifetimes: rounded to the places, trailing
    /// zeros and a bare point dropped, the sign kept only for what rounds
    /// below zero; beyond an exact integer, Swift's own form.
    func testFixedPointNumbers() {
        let cases: [(Double, Int, String)] = [
            (90, 2, "90"), (6.666_666, 2, "6.67"), (0.723, 3, "0.723"), (0.7230001, 3, "0.723"), (0.72, 3, "0.72"),
            (0.001, 3, "0.001"), (0.0004, 3, "0"), (-0.0004, 3, "0"), (-0.5, 3, "-0.5"), (-12.05, 2, "-12.05"),
            (1.999_6, 3, "2"), (10.1, 2, "10.1"), (100, 0, "100"), (0, 3, "0"), (1e20, 2, "1e+20"),
            (.infinity, 2, "null"), (.nan, 2, "null"),
        ]
        for (value, places, expected) in cases {
            let out = JSONBytes()
            out.append(fixed: value, places: places)
            XCTAssertEqual(out.text, expected, "\(value) to \(places) places")
        }
    }
}
