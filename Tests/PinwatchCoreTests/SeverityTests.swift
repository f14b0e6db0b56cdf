import XCTest

@testable import PinwatchCore

/// DESIGN §5: severity and reason are decided once, in the verdict, for every
/// status × alert combination.
final class SeverityTests: XCTestCase {
    private typealias F = Fixtures

    private struct Row {
        var name: String
        var report: HostReport
        var severity: HostSeverity
        var reason: String
    }

    private var proxyRoute: ProxyRoute { ProxyRoute(scheme: .http, host: "127.0.0.1", port: 3128, source: "https_proxy") }

    func testSeverityAndReasonTable() {
        let failure = ProbeFailure(kind: .timeout, message: "timed out after 5 s during the TLS handshake")
        let rows: [Row] = [
            Row(
                name: "ok", report: F.report(F.host(ca: [F.spkiPin(3)]), F.result(chain: F.chain())),
                severity: .ok, reason: "a CA-tier pin matches: survives leaf renewals"),
            Row(
                name: "unpinned", report: F.report(F.host(), F.result(chain: F.chain())),
                severity: .ok, reason: "no pins configured: inventory only"),
            Row(
                name: "leaf_only",
                report: F.report(F.host(leaf: [F.spkiPin(1)]), F.result(chain: F.chain(leafDaysLeft: 40.5))),
                severity: .warning,
                reason: "only the leaf pin still matches: breaks at the next leaf renewal (leaf expires in 40 days)"),
            Row(
                name: "expiring on an ok host",
                report: F.report(F.host(ca: [F.spkiPin(3)]), F.result(chain: F.chain(leafDaysLeft: 15.5))),
                severity: .warning, reason: "the leaf certificate expires in 15 days"),
            Row(
                name: "critical_expiry on an ok host",
                report: F.report(F.host(ca: [F.spkiPin(3)]), F.result(chain: F.chain(leafDaysLeft: 4.5))),
                severity: .critical, reason: "the leaf certificate expires in 4 days"),
            Row(
                name: "critical_expiry on a leaf_only host",
                report: F.report(F.host(leaf: [F.spkiPin(1)]), F.result(chain: F.chain(leafDaysLeft: 1.5))),
                severity: .critical,
                reason: "the leaf certificate expires in 1 day; only the leaf pin still matches: breaks at the next leaf renewal"),
            Row(
                name: "expired (blocked: untrusted)",
                report: F.report(F.host(ca: [F.spkiPin(3)]), F.result(chain: F.chain(leafDaysLeft: -2.5), trusted: false)),
                severity: .critical, reason: "pinned clients refuse this host now: the leaf certificate expired 3 days ago"),
            Row(
                name: "expired on an unpinned host",
                report: F.report(F.host(), F.result(chain: F.chain(leafDaysLeft: -0.5), trusted: false)),
                severity: .critical, reason: "the leaf certificate expired 1 day ago"),
            Row(
                name: "blocked: no pin matches",
                report: F.report(F.host(ca: [F.spkiPin(50)]), F.result(chain: F.chain())),
                severity: .critical, reason: "pinned clients refuse this host now: no configured pin matches the chain"),
            Row(
                name: "blocked: untrusted",
                report: F.report(F.host(ca: [F.spkiPin(3)]), F.result(chain: F.chain(), trusted: false)),
                severity: .critical,
                reason: "pinned clients refuse this host now: chain not trusted (unable to get local issuer certificate)"),
            Row(
                name: "intercepted",
                report: F.report(F.host(ca: [F.spkiPin(3)]), F.result(chain: F.chain(rootKey: 70), trusted: false, proxy: proxyRoute)),
                severity: .critical,
                reason:
                    "intercepted by proxy http://127.0.0.1:3128: the chain came from the proxy, not the server, and it is not trusted; "
                    + "whether the server was reached is unknown"),
            Row(
                name: "wrong pin through an honest proxy",
                report: F.report(F.host(ca: [F.spkiPin(50)]), F.result(chain: F.chain(), proxy: proxyRoute)),
                severity: .critical,
                reason:
                    "pinned clients refuse this host now: no configured pin matches the chain (seen through proxy http://127.0.0.1:3128; a direct probe shows whether it is the server's)"
            ),
            Row(
                name: "proxy that does not intercept",
                report: F.report(F.host(ca: [F.spkiPin(3)]), F.result(chain: F.chain(), proxy: proxyRoute)),
                severity: .ok, reason: "a CA-tier pin matches: survives leaf renewals"),
            Row(
                name: "error", report: F.report(F.host(ca: [F.spkiPin(3)]), .failed(failure, elapsed: 5)),
                severity: .unknown, reason: "probe failed (timeout): timed out after 5 s during the TLS handshake"),
        ]
        for row in rows {
            XCTAssertEqual(row.report.severity, row.severity, row.name)
            XCTAssertEqual(row.report.reason, row.reason, row.name)
            XCTAssertEqual(CheckState(row.report), CheckState(row.severity), row.name)
        }
    }

    /// Every status crossed with every alert that can go with it has a
    /// severity and a reason: none falls through unexplained.
    func testEveryStatusAndAlertCombinationIsDecided() {
        for status in HostStatus.allCases {
            for alert in HostAlert.allCases {
                let expiry = ChainExpiry(level: 0, role: .leaf, subject: "CN=api.example.com", notAfter: F.now, daysLeft: 3)
                let assessment = Verdict.assess(
                    status: status, alerts: [alert], result: F.result(chain: F.chain()), expiry: expiry, proxy: ProxyReport())
                XCTAssertFalse(assessment.reason.isEmpty, "\(status) \(alert)")
                if status == .error { XCTAssertEqual(assessment.severity, .unknown) }
                if status == .blocked || [.expired, .criticalExpiry, .intercepted].contains(alert) {
                    XCTAssertEqual(assessment.severity, status == .error ? .unknown : .critical, "\(status) \(alert)")
                }
            }
        }
    }

    /// DESIGN §13: a renewal estimated in the past is due now, not
    /// "in ~0 days"; the leaf's own days still follow.
    func testOverdueRenewalIsDueNowInTheLeafOnlyReason() {
        let report = F.report(F.host(leaf: [F.spkiPin(1)]), F.result(chain: F.chain(leafDaysLeft: 20.5)))
        let overdue = HostHistory(renewal: RenewalEstimate(date: F.now.addingTimeInterval(-3_600), basis: .lifetime))
        XCTAssertEqual(
            report.with(history: overdue, now: F.now).reason,
            "only the leaf pin still matches: breaks at the next leaf renewal, which is due now (leaf expires in 20 days)")
    }

    func testBellTransitions() {
        let cases: [(HostSeverity?, HostSeverity, Bool)] = [
            (nil, .ok, false), (nil, .warning, true), (nil, .critical, true), (nil, .unknown, true),
            (.ok, .warning, true), (.warning, .critical, true), (.ok, .critical, true),
            (.ok, .unknown, true), (.critical, .unknown, true), (.warning, .unknown, true),
            (.critical, .warning, false), (.warning, .ok, false), (.critical, .critical, false),
            (.unknown, .unknown, false), (.unknown, .ok, false), (.unknown, .warning, true),
        ]
        for (before, after, rings) in cases {
            XCTAssertEqual(after.isWorse(than: before), rings, "\(String(describing: before)) → \(after)")
        }
    }

    /// Roles come from the certificates (DESIGN §5).
    func testRolesComeFromTheCertificateNotItsPosition() {
        var sentOnly = F.chain()
        sentOnly.removeLast()
        let untrusted = F.report(F.host(ca: [F.spkiPin(3)]), F.result(chain: sentOnly, trusted: false))
        XCTAssertEqual(untrusted.levels.map(\.role), [.leaf, .intermediate], "a chain that stops before a root has no root")

        let trusted = F.report(F.host(ca: [F.spkiPin(3)]), F.result(chain: F.chain()))
        XCTAssertEqual(trusted.levels.map(\.role), [.leaf, .intermediate, .root], "the trust anchor is the root")

        var selfSigned = F.chain()
        selfSigned[2].facts.isSelfSigned = true
        let untrustedWithRoot = F.report(F.host(ca: [F.spkiPin(3)]), F.result(chain: selfSigned, trusted: false))
        XCTAssertEqual(untrustedWithRoot.levels.map(\.role), [.leaf, .intermediate, .root])

        var single = [F.chain()[0]]
        single[0].facts.isSelfSigned = true
        XCTAssertEqual(F.report(F.host(), F.result(chain: single, trusted: false)).levels.map(\.role), [.leaf])
    }
}
