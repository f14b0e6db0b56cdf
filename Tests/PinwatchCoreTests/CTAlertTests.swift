import Foundation
import XCTest

@testable import PinwatchCore

/// What a host's report makes of the certificates Certificate
/// Transparency logged for it: `next_leaf_logged` while one breaks a
/// release (critical once it is valid), nothing for one every release
/// survives or one already expired, `ct_log_misbehaving` naming the log.
final class CTAlertTests: XCTestCase {
    private let now = Fixtures.now

    private func logged(breaks: [String], survives: [String] = [], notBefore: TimeInterval, notAfter: TimeInterval = 86_400 * 90)
        -> CTLoggedCertificate
    {
        CTLoggedCertificate(
            loggedAt: now.addingTimeInterval(-3_600), log: "Log A", index: 7, precertificate: true, serial: "0A1B",
            notBefore: now.addingTimeInterval(notBefore), notAfter: now.addingTimeInterval(notAfter), issuer: "CN=YR2",
            issuerSPKISHA256: Array(repeating: 2, count: 32), leafSPKISHA256: Array(repeating: 1, count: 32),
            verdict: CTLoggedVerdict(survives: survives, breaks: breaks))
    }

    private var okReport: HostReport {
        Fixtures.report(Fixtures.host(ca: [Fixtures.spkiPin(3)]), Fixtures.result(chain: Fixtures.chain()))
    }

    func testALoggedCertificateThatBreaksAReleaseWarnsUntilItIsValidThenIsCritical() {
        XCTAssertEqual(okReport.severity, .ok)
        let future = okReport.with(ct: CTHostFacts(logged: [logged(breaks: ["android 5.2"], notBefore: 3_600)]), now: now)
        XCTAssertEqual(future.severity, .warning)
        XCTAssertEqual(future.headline, .nextLeafLogged)
        XCTAssertTrue(future.alerts.contains(.nextLeafLogged))
        XCTAssertEqual(
            future.reason,
            "a new precertificate was logged at \(DateText.readableUTC(now.addingTimeInterval(-3_600))) in Log A under CN=YR2: "
                + "android 5.2 has no pin on its chain and will refuse it once it is deployed")

        let valid = okReport.with(ct: CTHostFacts(logged: [logged(breaks: ["android 5.2", "ios 7"], notBefore: -60)]), now: now)
        XCTAssertEqual(valid.severity, .critical)
        XCTAssertEqual(valid.headline, .nextLeafLogged)
        XCTAssertTrue(valid.reason.contains("android 5.2, ios 7 have no pin"), valid.reason)
        XCTAssertTrue(valid.reason.hasSuffix("it may be deployed any time)"), valid.reason)
        // The history step rebuilds the report: the alert and the facts stay.
        let recorded = valid.with(history: HostHistory(), now: now)
        XCTAssertEqual(recorded.headline, .nextLeafLogged)
        XCTAssertEqual(recorded.ct?.logged.count, 1)
    }

    func testASurvivorOrAnExpiredCertificateAlertsNothing() {
        let survivor = okReport.with(ct: CTHostFacts(logged: [logged(breaks: [], survives: ["android 5.2"], notBefore: -60)]), now: now)
        XCTAssertEqual(survivor.severity, .ok)
        XCTAssertFalse(survivor.alerts.contains(.nextLeafLogged))
        XCTAssertEqual(survivor.ct?.logged.count, 1, "it is still listed")
        let expired = okReport.with(
            ct: CTHostFacts(logged: [logged(breaks: ["android 5.2"], notBefore: -86_400 * 100, notAfter: -60)]), now: now)
        XCTAssertEqual(expired.severity, .ok)
        XCTAssertFalse(expired.alerts.contains(.nextLeafLogged))
    }

    func testAMisbehavingLogIsNamed() {
        let report = okReport.with(ct: CTHostFacts(misbehavingLogs: ["Log B"]), now: now)
        XCTAssertEqual(report.severity, .warning)
        XCTAssertEqual(report.headline, .ctLogMisbehaving)
        XCTAssertTrue(report.reason.contains("Log B"), report.reason)
        let cleared = report.with(ct: CTHostFacts(), now: now)
        XCTAssertEqual(cleared.severity, .ok, "a log verified again clears it")
        XCTAssertFalse(cleared.alerts.contains(.ctLogMisbehaving))
    }
}
