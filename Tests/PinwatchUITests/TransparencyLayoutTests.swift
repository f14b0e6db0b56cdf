import Foundation
import XCTest

@testable import PinwatchCore
@testable import PinwatchUI

/// The dashboard's Certificate Transparency lines: the row's `ct` mark, the
/// banner's headline, the detail view's logged certificates, and a hostile
/// issuer defused in every one of them.
final class TransparencyLayoutTests: XCTestCase {
    private let now = Date(timeIntervalSince1970: 1_780_000_000)

    func testTheRowTheBannerAndTheDetailViewShowALoggedCertificateDefused() {
        let hostile = "CN=\u{1B}]0;pwned\u{07}\u{1B}[31mYR2\u{9B}2J\u{202E}"
        let host = Fixture.host("api.example")
        var state = DashboardState(configPath: "c.yaml", hosts: [host], timeZone: Fixture.utc)
        let logged = CTLoggedCertificate(
            loggedAt: now.addingTimeInterval(-600), log: "Log A", index: 9, precertificate: true, serial: "0A", notBefore: now,
            notAfter: now.addingTimeInterval(86_400 * 90), issuer: hostile, issuerSPKISHA256: [],
            leafSPKISHA256: Array(repeating: 1, count: 32), verdict: CTLoggedVerdict(breaks: ["android 5.2"]))
        let report = Fixture.report(for: host, status: .ok).with(ct: CTHostFacts(logged: [logged]), now: now)
        XCTAssertEqual(report.headline, .nextLeafLogged)
        state.record(report, forHost: 0, at: now)
        _ = DashboardLayout.paint(&state, width: 160, height: 40, now: now)
        let table = TextRenderer.render(DashboardLayout.frame(for: state, width: 160, height: 40, now: now))
        XCTAssertTrue(table.contains("NEXT LEAF LOGGED"), table)
        XCTAssertTrue(table.contains("ct a new precertificate was logged"), table)

        state.view = .detail(hostIndex: 0)
        _ = DashboardLayout.paint(&state, width: 160, height: 80, now: now)
        let frame = DashboardLayout.frame(for: state, width: 160, height: 80, now: now)
        let text = TextRenderer.render(frame)
        XCTAssertTrue(text.contains("certificate transparency"), text)
        XCTAssertTrue(text.contains("breaks android 5.2"), text)
        XCTAssertTrue(text.contains("pwned"), "the issuer is shown, defused: \(text)")
        XCTAssertFalse(text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x9B || $0.value == 0x202E })
        let ansi = ANSIRenderer.render(frame, theme: ThemeLoader.builtInDefault)
        XCTAssertFalse(ansi.contains("\u{1B}]"))
        XCTAssertFalse(ansi.contains("\u{1B}[31mYR2"))
    }
}
