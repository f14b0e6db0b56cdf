import Foundation
import XCTest

@testable import PinwatchCore

/// The family table is the one list of what pinwatch exports: README's
/// metrics table names exactly its families, and every exposition writes
/// its families in the table's order with the table's types.
final class MetricTableTests: XCTestCase {
    private typealias F = Fixtures

    func testReadmesMetricsTableNamesEveryFamilyOfTheTableAndNoOther() throws {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("README.md")
        let documented = try Self.readmeMetricNames(String(contentsOf: readme, encoding: .utf8))
        let table = Set(MetricFamilyName.allCases.map(\.rawValue))
        XCTAssertEqual(documented.subtracting(table).sorted(), [], "in README's metrics table, not in MetricFamilyName")
        XCTAssertEqual(table.subtracting(documented).sorted(), [], "in MetricFamilyName, not in README's metrics table")
    }

    /// The names in the first column of the table under `| metric | meaning |`:
    /// each metric's code span, without its `{labels}`.
    static func readmeMetricNames(_ readme: String) throws -> Set<String> {
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false)
        let header = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("| metric | meaning |") }, "README has a metrics table")
        var names: Set<String> = []
        for line in lines[(header + 2)...] {
            guard line.hasPrefix("|") else { break }
            let firstColumn = line.split(separator: "|", omittingEmptySubsequences: true).first ?? ""
            for (index, span) in firstColumn.split(separator: "`", omittingEmptySubsequences: false).enumerated() where index % 2 == 1 {
                // Words such as `serve` say where a series is published.
                guard span.hasPrefix("pinwatch_") || span.hasPrefix("process_") else { continue }
                names.insert(String(span.prefix { $0 != "{" }))
            }
        }
        return names
    }

    func testTheCycleTextListsTheRendererFamiliesOfTheTableInItsOrderWithItsTypes() {
        let reports = [
            F.report(F.host(ca: [F.spkiPin(3)]), F.result(chain: F.chain())),
            F.report(F.host(ca: [F.spkiPin(3)]), ProbeResult(failure: ProbeFailure(kind: .timeout, message: "x"))),
        ]
        let text = PrometheusExposition.render(
            reports, cycle: .init(finishedAt: F.now, duration: 1, completedCycles: 1, interval: 60, ctLogs: []), version: "0",
            deprecatedSeries: true)
        let written = Self.typeLines(text)
        let expected = MetricFamily.all.compactMap { family -> String? in
            switch family.scope {
            case .host, .exposition: "\(family.name.rawValue) \(family.type.rawValue)"
            case .history, .scrape, .probe, .clientReports: nil
            }
        }
        XCTAssertEqual(written, expected)
        // Without `ct:` the Certificate Transparency families are left out,
        // and without `deprecated_series: true` the deprecated ones.
        let withoutCT = Self.typeLines(
            PrometheusExposition.render(
                reports, cycle: .init(finishedAt: F.now, duration: 1, completedCycles: 1, interval: 60), version: "0"))
        let leftOut: [MetricFamily.Absence] = [.withoutCT, .withoutDeprecatedSeries]
        XCTAssertEqual(
            withoutCT,
            expected.filter { line in
                !MetricFamily.all.contains { leftOut.contains($0.absence) && line.hasPrefix($0.name.rawValue + " ") }
            })
        XCTAssertFalse(withoutCT.contains { $0.hasPrefix("pinwatch_ct_") })
    }

    func testProbeTextLeavesOutTheCycleFamiliesTheTableSaysAreAbsentFromIt() {
        let report = F.report(F.host(ca: [F.spkiPin(3)]), F.result(chain: F.chain()))
        let written = Self.typeLines(String(decoding: PrometheusExposition.probeAnswer(report, version: "0", vantage: nil), as: UTF8.self))
        let expected = MetricFamily.all.compactMap { family -> String? in
            switch (family.scope, family.absence) {
            case (.host, .withoutCT), (.host, .withoutDeprecatedSeries): nil
            case (.host, _), (.exposition, .never), (.exposition, .someHosts), (.probe, _):
                "\(family.name.rawValue) \(family.type.rawValue)"
            default: nil
            }
        }
        XCTAssertEqual(written, expected)
        XCTAssertFalse(expected.contains { $0.hasPrefix("pinwatch_cycles_total ") })
    }

    func testServesOwnFamiliesTakeTheirHeadersFromTheTable() {
        let text =
            PrometheusExposition.historyWrites(HistoryWriteHealth(failedWrites: 2))
            + ChainChangeCounter(started: F.now).exposition([])
            + PrometheusExposition.process(ProcessFigures(openDescriptors: 3))
            + ClientReportCounts().exposition()
        XCTAssertEqual(
            Self.typeLines(text),
            [
                "pinwatch_history_write_errors_total counter", "pinwatch_chain_changes_total counter", "process_open_fds gauge",
                "pinwatch_client_reports_total counter", "pinwatch_client_reports_refused_total counter",
            ])
        for family in [MetricFamilyName.historyWriteErrors, .chainChanges, .processOpenDescriptors, .clientReports, .clientReportsRefused] {
            XCTAssertTrue(text.contains("# HELP \(family.rawValue) \(MetricFamily.of(family).help)\n"), family.rawValue)
        }
    }

    /// `name type` of each `# TYPE` line, in order.
    private static func typeLines(_ text: String) -> [String] {
        text.split(separator: "\n").compactMap { line in line.hasPrefix("# TYPE ") ? String(line.dropFirst(7)) : nil }
    }
}
