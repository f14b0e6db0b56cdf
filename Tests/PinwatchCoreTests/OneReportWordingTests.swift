import Foundation
import XCTest

@testable import PinwatchCore

/// Each thing a report says is derived once, and every output
/// reads it from there.
final class OneReportWordingTests: XCTestCase {
    private typealias F = Fixtures

    private var reports: [HostReport] {
        let leafOnlyExpiring = F.report(
            F.host(ca: [F.spkiPin(50)], leaf: [F.spkiPin(1)]), F.result(chain: F.chain(leafDaysLeft: 3)))
        let leafOnly = F.report(F.host(ca: [F.spkiPin(50)], leaf: [F.spkiPin(1)]), F.result(chain: F.chain()))
        let ok = F.report(F.host(ca: [F.spkiPin(3)]), F.result(chain: F.chain()))
        let failed = F.report(F.host(ca: [F.spkiPin(3)]), ProbeResult(failure: ProbeFailure(kind: .timeout, message: "x")))
        return [leafOnlyExpiring, leafOnly, ok, failed]
    }

    /// The table's cell and the banner's line of a leaf_only host whose
    /// leaf ends in 3 days name one cause, in one symbol: `✗ expiring` and
    /// `✗ EXPIRING`, never `✗ leaf_only` beside `EXPIRING`.
    func testOneHeadlineWithItsSymbolPerReport() {
        let reports = reports
        XCTAssertEqual(reports[0].status, .leafOnly)
        XCTAssertEqual(reports[0].headline, .expiring)
        XCTAssertEqual(reports[0].headlineText, "✗ expiring")
        XCTAssertEqual(reports[0].headline.tag, "EXPIRING")
        XCTAssertEqual(reports.map(\.headlineText), ["✗ expiring", "⚠ leaf_only", "✓ ok", "! error"])
        XCTAssertEqual(HostHeadline.unpinned.symbol(at: nil), "○", "a header count of no host keeps its usual symbol")
        XCTAssertEqual(HostHeadline.ok.symbol(at: .warning), "⚠", "chain_changed holds an ok host at warning")
    }

    /// `check`'s line, JSON's `summary.severity` and the exporter's gauge
    /// count severities the same way: from one `SeveritySummary`.
    func testOneSeveritySummaryForCheckJSONAndMetrics() throws {
        let reports = reports
        let summary = SeveritySummary(reports)
        XCTAssertEqual(HostSeverity.worstFirst.map(summary.count(of:)), [1, 1, 1, 1])
        XCTAssertEqual(summary.text, "1 critical, 1 unknown, 1 warning, 1 ok")
        XCTAssertEqual(SeveritySummary([reports[2], nil, reports[2]] as [HostReport?]).count(of: .ok), 2, "waiting hosts count nowhere")

        let firstLine = CheckReport.render(reports).text.split(separator: "\n")[0]
        XCTAssertTrue(firstLine.contains("(\(summary.text))"), String(firstLine))
        let json = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(JSONReport.render(reports, generatedAt: F.now).utf8)) as? [String: Any])
        let severity = (json["summary"] as? [String: Any])?["severity"] as? [String: Int]
        XCTAssertEqual(severity, Dictionary(uniqueKeysWithValues: HostSeverity.worstFirst.map { ($0.rawValue, summary.count(of: $0)) }))
        let metrics = PrometheusExposition.render(reports, cycle: nil, version: "0")
        for value in HostSeverity.worstFirst {
            XCTAssertTrue(
                metrics.contains("pinwatch_hosts_by_severity{severity=\"\(value.rawValue)\"} \(summary.count(of: value))\n"), metrics)
        }
    }

    /// `inspect`'s text and JSON offer the same stanza the dashboard's `y`
    /// copies, built once; a host without a chain has none.
    func testOneStanzaForInspectTextJSONAndTheDashboard() throws {
        let reports = reports
        let stanza = try XCTUnwrap(PinStanza.document(for: reports[2]))
        XCTAssertTrue(stanza.hasPrefix("hosts:\n  - host: api.example.com\n"), stanza)
        XCTAssertTrue(stanza.contains("      ca:\n        - \(PinText.sha256(F.digest(2)))   # CN=R11\n"), stanza)
        XCTAssertTrue(ChainListing.text(report: reports[2]).hasSuffix("\n\n" + stanza))
        let inspected = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(JSONReport.renderInspectedHost(reports[2]).utf8)) as? [String: Any])
        XCTAssertEqual(inspected["stanza"] as? String, stanza)

        XCTAssertNil(PinStanza.document(for: reports[3]))
        let failed = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(JSONReport.renderInspectedHost(reports[3]).utf8)) as? [String: Any])
        XCTAssertTrue(failed["stanza"] is NSNull)
    }
}
