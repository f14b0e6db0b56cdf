import Foundation
import XCTest

@testable import PinwatchUI

/// An age is the difference of two clocks, one of them another machine's:
/// its text is total over every Double, never a trap.
final class DurationFormattingTests: XCTestCase {
    func testEveryDoubleHasAnAge() {
        XCTAssertEqual(Formatting.duration(42.9), "42s")
        XCTAssertEqual(Formatting.duration(3 * 3600), "3h")
        XCTAssertEqual(Formatting.duration(-5), "0s")
        XCTAssertEqual(Formatting.duration(.nan), "0s")
        XCTAssertEqual(Formatting.duration(-1e19), "0s")
        XCTAssertEqual(Formatting.duration(-.infinity), "0s")
        for huge in [1e19, 1e300, Double.greatestFiniteMagnitude, .infinity] {
            XCTAssertEqual(Formatting.duration(huge), "\((1 << 53) / 86_400)d", "\(huge)")
        }
    }
}
