import Foundation
import PinwatchCore
import XCTest

final class DateTextTests: XCTestCase {
    func testKnownInstants() {
        let cases: [(TimeInterval, String)] = [
            (0, "1970-01-01T00:00:00Z"),
            (-1, "1969-12-31T23:59:59Z"),
            (0.999, "1970-01-01T00:00:00Z"),
            (-0.5, "1969-12-31T23:59:59Z"),
            (951_782_400, "2000-02-29T00:00:00Z"),
            (4_107_542_400, "2100-03-01T00:00:00Z"),
            (1_795_591_981, "2026-11-25T07:33:01Z"),
            (253_402_300_799, "9999-12-31T23:59:59Z"),
            (-12_212_553_600, "1583-01-01T00:00:00Z"),
        ]
        for (seconds, expected) in cases {
            XCTAssertEqual(DateText.iso8601(Date(timeIntervalSince1970: seconds)), expected, "\(seconds)")
        }
        XCTAssertEqual(DateText.readableUTC(Date(timeIntervalSince1970: 1_795_591_981)), "2026-11-25 07:33 UTC")
        XCTAssertEqual(DateText.day(Date(timeIntervalSince1970: -1)), "1969-12-31")
    }

    /// The arithmetic agrees with Foundation's calendar wherever the two
    /// calendars agree (Foundation's Gregorian turns Julian before 1582).
    func testAgreesWithFoundationsCalendarFrom1583To9999() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        var generator = SystemRandomNumberGenerator()
        let first: Int64 = -12_212_553_600
        let last: Int64 = 253_402_300_799
        let samples = (0..<3_000).map { _ in Int64.random(in: first...last, using: &generator) }
        for seconds in samples + [first, last] {
            let date = Date(timeIntervalSince1970: TimeInterval(seconds))
            let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
            let expected = String(
                format: "%04d-%02d-%02dT%02d:%02d:%02dZ", parts.year!, parts.month!, parts.day!, parts.hour!, parts.minute!,
                parts.second!)
            XCTAssertEqual(DateText.iso8601(date), expected, "\(seconds)")
        }
    }

    func testInstantsBeyondAnyCertificateAreClampedNotATrap() {
        XCTAssertEqual(DateText.iso8601(Date(timeIntervalSince1970: 1e18)), "9999-12-31T23:59:59Z")
        XCTAssertEqual(DateText.iso8601(Date(timeIntervalSince1970: -1e18)), "0001-01-01T00:00:00Z")
        XCTAssertEqual(DateText.iso8601(Date(timeIntervalSince1970: .nan)), "1970-01-01T00:00:00Z")
        XCTAssertEqual(DateText.iso8601(.distantFuture), "4001-01-01T00:00:00Z")
    }
}
