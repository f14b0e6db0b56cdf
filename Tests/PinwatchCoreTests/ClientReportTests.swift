import Foundation
import XCTest

@testable import PinwatchCore

/// The three report formats read from bodies written after each library's
/// own code (TrustKit's TSKPinFailureReport, RFC 7469 §3, react-native-ssl-
/// manager's PinningFailureReporter), `report_uri:`, the rate limit and
/// the verdict the reports raise.
final class ClientReportTests: XCTestCase {
    private func parse(_ object: [String: Any]) -> Result<PinFailureReport, PinFailureReportProblem> {
        PinFailureReport.parse(try! JSONSerialization.data(withJSONObject: object))
    }

    func testEachFormatIsToldByItsOwnKeys() throws {
        let trustKit = try parse([
            "app-bundle-id": "com.example.bank", "app-version": "7.1", "hostname": "API.example.com", "port": 443,
            "noted-hostname": "example.com", "include-subdomains": true, "validated-certificate-chain": ["-----BEGIN CERTIFICATE-----"],
            "known-pins": [], "validation-result": 1, "date-time": "2026-12-06T11:00:00Z",
        ]).get()
        XCTAssertEqual(trustKit.format, .trustKit)
        XCTAssertEqual(trustKit.hostname, "api.example.com")
        XCTAssertEqual(trustKit.app, "com.example.bank 7.1")
        XCTAssertEqual(trustKit.outcome, "no pin matched")
        let hpkp = try parse([
            "date-time": "2026-12-06T11:00:00Z", "hostname": "example.com", "port": 8443,
            "effective-expiration-date": "2027-01-01T00:00:00Z",
            "include-subdomains": false, "noted-hostname": "example.com", "served-certificate-chain": ["served"],
            "validated-certificate-chain": ["validated"], "known-pins": [],
        ]).get()
        XCTAssertEqual(hpkp.format, .hpkp)
        XCTAssertEqual(hpkp.port, 8443)
        XCTAssertEqual(hpkp.chainPEM, ["served"], "the chain the server served, not the one the client built")
        let manager = try parse([
            "hostname": "example.com", "enforced": false, "known-pins": [], "served-pins": ["sha256/AAAA"], "message": "pin mismatch",
            "date-time": "2026-12-06T11:00:00Z",
        ]).get()
        XCTAssertEqual(manager.format, .sslManager)
        XCTAssertNil(manager.port)
        XCTAssertEqual(manager.outcome, "pin mismatch, not enforced")
    }

    func testBodiesThatAreNotReportsSayWhy() {
        XCTAssertEqual(PinFailureReport.parse(Data("[1]".utf8)).failureText, "the body is not a JSON object")
        XCTAssertTrue(parse(["hostname": "x"]).failureText.contains("not a pin failure report"))
        XCTAssertTrue(parse(["app-bundle-id": "a", "port": 443]).failureText.contains("without a hostname"))
        XCTAssertTrue(parse(["app-bundle-id": "a", "hostname": "x", "port": 70_000]).failureText.contains("port"))
        let long = Array(repeating: "pem", count: 11)
        XCTAssertTrue(
            parse(["app-bundle-id": "a", "hostname": "x", "port": 1, "validated-certificate-chain": long]).failureText.contains(
                "at most 10"))
    }

    func testARecordHoldsOnlyPrintableASCII() {
        let record = ClientReportRecord(
            receivedAt: Date(timeIntervalSince1970: 0), host: "example.com", port: 443, client: "trustkit", format: "trustkit",
            app: "app\u{1B}[2J", outcome: "x\u{2028}y", chain: [ClientReportRecord.certificateLine(subject: "CN=a\u{85}b", issuer: "CN=c")])
        XCTAssertEqual(record.chainSummary, "CN=a\\x85b <- CN=c")
        XCTAssertEqual(record.app, "app\\x1B[2J")
        XCTAssertEqual(record.outcome, "x\\u2028y")
    }

    func testTheReportURIKeyAndItsProblems() throws {
        let load = { (yaml: String) throws -> Config in try ConfigLoader { _ in [] }.load(yaml: yaml, path: "/etc/pinwatch/pinwatch.yaml") }
        let config = try load("report_uri: {path: /report, token_file: report.token}\n")
        XCTAssertEqual(config.reportURI, ReportURISetting(path: "/report", token: .file("/etc/pinwatch/report.token")))
        XCTAssertEqual(
            try load("report_uri: {path: /r, token_env: PINWATCH_REPORT_TOKEN}\n").reportURI?.token, .environment("PINWATCH_REPORT_TOKEN"))
        XCTAssertNil(try load("interval: 1m\n").reportURI, "off unless configured")
        for (yaml, expected) in [
            ("report_uri: {path: /metrics, token_env: T}\n", "already answers"),
            ("report_uri: {path: report, token_env: T}\n", "is not a path"),
            ("report_uri: {path: /report}\n", "missing token_file or token_env"),
            ("report_uri: {path: /report, token_env: T, token_file: f}\n", "not both"),
            ("report_uri: {token_env: T}\n", "report_uri.path"),
        ] {
            XCTAssertThrowsError(try load(yaml), yaml) { XCTAssertTrue("\($0)".contains(expected), "\(yaml): \($0)") }
        }
        XCTAssertEqual(try ReportURISetting.token(from: "0123456789abcdef\n", source: "f").get(), "0123456789abcdef")
        XCTAssertThrowsError(try ReportURISetting.token(from: "short", source: "f").get())
        XCTAssertThrowsError(try ReportURISetting.token(from: "0123456789abcdef&x=1", source: "f").get())
        XCTAssertTrue(ReportURISetting.tokenMatches("0123456789abcdef", "0123456789abcdef"))
        XCTAssertFalse(ReportURISetting.tokenMatches("0123456789abcdeX", "0123456789abcdef"))
        XCTAssertFalse(ReportURISetting.tokenMatches("0123456789abcdef0", "0123456789abcdef"))
        XCTAssertFalse(ReportURISetting.tokenMatches("", "0123456789abcdef"))
    }

    func testTheRateLimitRefillsWithTheClock() {
        var limit = SourceRateLimit(burst: 3, refill: 10, maximumSources: 2)
        let start = Date(timeIntervalSince1970: 1_000)
        XCTAssertEqual((0..<4).map { _ in limit.admit("a", now: start) }, [true, true, true, false])
        XCTAssertTrue(limit.admit("b", now: start), "each address has its own bucket")
        XCTAssertFalse(limit.admit("a", now: start.addingTimeInterval(9)))
        XCTAssertTrue(limit.admit("a", now: start.addingTimeInterval(19)))
        XCTAssertTrue(limit.admit("c", now: start.addingTimeInterval(20)), "a third address evicts the idlest")
    }

    func testReportsWarnOfAHostThatIsFineAndOfNoOther() {
        let record = ClientReportRecord(
            receivedAt: Date(timeIntervalSince1970: 0), host: "example.com", port: 443, client: "ios-7.1", format: "trustkit",
            outcome: "chain not trusted", chain: ["CN=example.com <- CN=Corp CA"])
        var history = HostHistory()
        history.clientReports = ClientReportFacts(count: 2, latest: record, clients: ["ios-7.1"])
        let now = Fixtures.now
        let okReport = Fixtures.report(Fixtures.host(ca: [Fixtures.spkiPin(3)]), Fixtures.result(chain: Fixtures.chain()))
        XCTAssertEqual(okReport.severity, .ok)
        let fine = okReport.with(history: history, now: now)
        XCTAssertEqual(fine.severity, .warning)
        XCTAssertEqual(fine.headline, .clientReports)
        XCTAssertTrue(fine.alerts.contains(.clientReports))
        XCTAssertEqual(
            fine.reason,
            "clients on some network see a different chain: 2 client reports in 24 h from ios-7.1; the latest (chain not trusted) saw: CN=example.com <- CN=Corp CA"
        )
        let leafOnly = Fixtures.report(
            Fixtures.host(ca: [Fixtures.spkiPin(99)], leaf: [Fixtures.spkiPin(1)]), Fixtures.result(chain: Fixtures.chain())
        ).with(history: history, now: now)
        XCTAssertFalse(leafOnly.alerts.contains(.clientReports), "leaf_only already explains what clients see")
        XCTAssertEqual(leafOnly.headline, .leafOnly)
        XCTAssertFalse(okReport.with(history: HostHistory(), now: now).alerts.contains(.clientReports))
    }

    func testTheCountersLabelOnlyConfiguredNamesAndListEveryRefusal() {
        var counts = ClientReportCounts()
        counts.count(
            ClientReportRecord(receivedAt: Date(), host: "example.com", port: 443, client: "trustkit", format: "trustkit", chain: []))
        counts.refuse(.rate)
        let text = counts.exposition()
        XCTAssertTrue(text.contains("pinwatch_client_reports_total{host=\"example.com\",port=\"443\",client=\"trustkit\"} 1\n"), text)
        XCTAssertTrue(text.contains("pinwatch_client_reports_refused_total{reason=\"rate\"} 1\n"), text)
        XCTAssertTrue(text.contains("pinwatch_client_reports_refused_total{reason=\"token\"} 0\n"), text)
    }
}

extension Result where Failure == PinFailureReportProblem {
    fileprivate var failureText: String {
        if case .failure(let problem) = self { return problem.description }
        return ""
    }
}
