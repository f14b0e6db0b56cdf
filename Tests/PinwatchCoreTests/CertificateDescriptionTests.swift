import Foundation
import XCTest

@testable import PinwatchCore

/// Whole days are rounded down everywhere; a short remainder gets its hours.
final class CertificateDescriptionTests: XCTestCase {
    private let now = Date(timeIntervalSince1970: 1_800_000_000)

    private func validity(left seconds: TimeInterval, countedAt: Date?) -> String {
        let facts = CertificateFacts(
            subject: "CN=a", issuer: "CN=b", notBefore: now.addingTimeInterval(-86_400), notAfter: now.addingTimeInterval(seconds),
            keyDescription: "ECDSA P-256", spkiSHA256: [UInt8](repeating: 1, count: 32), keySHA256: [UInt8](repeating: 2, count: 32),
            certSHA256: [UInt8](repeating: 3, count: 32))
        let description = CertificateDescription(
            facts, daysLeft: Verdict.daysLeft(until: facts.notAfter, now: now), countedAt: countedAt)
        return description.rows.first { $0.label == "valid" }?.value ?? ""
    }

    func testUnderTenDaysTheHoursAreShownSoEightDaysTwentyThreeHoursIsNotEightDays() {
        XCTAssertTrue(validity(left: 8 * 86_400 + 23 * 3_600 + 59, countedAt: now).hasSuffix("(8 d 23 h left)"))
        XCTAssertTrue(validity(left: 5 * 3_600, countedAt: now).hasSuffix("(0 d 5 h left)"))
        XCTAssertTrue(validity(left: 40 * 86_400 + 23 * 3_600, countedAt: now).hasSuffix("(40 days left)"), "whole days above ten")
        XCTAssertTrue(validity(left: -3 * 86_400, countedAt: now).hasSuffix("(EXPIRED 3 days ago)"))
        XCTAssertTrue(validity(left: 8 * 86_400 + 23 * 3_600, countedAt: nil).hasSuffix("(8 days left)"), "without a time, days")
    }
}
