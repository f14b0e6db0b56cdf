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

/// A logged certificate's text is the CA's (or an attacker's, for a log
/// anyone can submit to): `pinwatch ct` shows it without a control
/// character, JSON with everything outside printable ASCII escaped.
final class CTListingTests: XCTestCase {
    func testHostileCertificateTextIsEscapedInTextAndJSON() {
        let issuer = "CN=Evil\u{1B}[2J\u{202E}CA\u{7}\nO=x"
        let logged = CTLoggedCertificate(
            loggedAt: Fixtures.now, log: "Log\u{1B}]52;c;AAAA\u{7}", index: 1, precertificate: false, serial: "01",
            notBefore: Fixtures.now, notAfter: Fixtures.now.addingTimeInterval(86_400), issuer: issuer,
            issuerSPKISHA256: [], leafSPKISHA256: Array(repeating: 1, count: 32),
            verdict: CTLoggedVerdict(breaks: ["android\u{1B}[31m"]))
        let hosts = [CTListing.Host(config: Fixtures.host(ca: [Fixtures.spkiPin(3)]), facts: CTHostFacts(logged: [logged]))]
        let logs = [CTLogState(log: "Log\u{1B}[1m", verifiedSize: 2, errors: ["bad_signature": 1], misbehaving: true)]
        let text = CTListing.text(hosts, logs: logs)
        XCTAssertFalse(text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x202E }, text)
        XCTAssertTrue(text.contains("FAILED VERIFICATION"), text)
        let json = CTListing.json(hosts, logs: logs, generatedAt: Fixtures.now)
        XCTAssertTrue(json.unicodeScalars.allSatisfy { $0.value == 0x0A || (0x20..<0x7F).contains($0.value) }, json)
        XCTAssertTrue(json.contains("\"issuer_spki_sha256\": null"), json)
    }

    func testALogCatchingUpSaysHowFar() {
        var state = CTLogState(log: "Log A", verifiedSize: 100)
        state.catchingUp = (read: 4_096, of: 10_000)
        let text = CTListing.text([], logs: [state])
        XCTAssertTrue(text.contains("Log A: verified to 100 entries; catching up: 4096 of 10000 new entries read"), text)
        let json = CTListing.json([], logs: [state], generatedAt: Fixtures.now)
        XCTAssertTrue(json.contains("\"read\": 4096"), json)
        XCTAssertTrue(json.contains("\"of\": 10000"), json)
    }
}

/// The footer's and the log's line for logs reading a large gap.
final class CTCatchUpSummaryTests: XCTestCase {
    func testOnlyLogsCatchingUpAreNamedWithTheirProgressAndNamesSanitised() {
        var reading = CTLogState(log: "Log\u{2028}A", verifiedSize: 10)
        reading.catchingUp = (read: 2_048, of: 10_000)
        let idle = CTLogState(log: "Log B", verifiedSize: 5)
        XCTAssertNil(CTLogState.catchUpSummary([idle]))
        XCTAssertEqual(
            CTLogState.catchUpSummary([idle, reading]),
            "Certificate Transparency catching up: Log\u{FFFD}A 2048 of 10000 new entries read")
    }
}
