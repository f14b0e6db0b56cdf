import Foundation
import PinwatchCore
import XCTest

@testable import PinwatchUI

/// Every rendered output of one fixed fleet (`GoldenFleet`) at a fixed
/// clock and time zone, byte for byte against `Tests/Golden/`: a change
/// to any output shows up as a diff of that file to review, where a
/// substring assertion would miss what it does not name. Here, not in
/// Core's tests, because this target sees both Core's encoders and the
/// dashboard's renderers. The manual page has its own golden test
/// (ManualPageRenderingTests, against docs/man).
final class GoldenOutputTests: XCTestCase {
    private let now = GoldenFleet.now
    private let reports = GoldenFleet.reports
    private let theme = ThemeLoader.builtInDefault

    // MARK: - The dashboard's frame

    func testSnapshotScreenAsTextANSISVGAndHTML() {
        let state = GoldenFleet.state()
        for (format, name) in [
            (SnapshotScreen.Format.text, "snapshot.txt"), (.ansi, "snapshot.ansi"), (.svg, "snapshot.svg"), (.html, "snapshot.html"),
        ] {
            GoldenFile.assert(SnapshotScreen.render(state, format: format, width: 120, theme: theme, now: now), matches: name)
        }
    }

    /// `snapshot --format text` writes its rows in blocks as they are drawn:
    /// the same text whatever the block, with a footer message and without.
    func testSnapshotTextWrittenInBlocksIsTheWholeScreen() {
        var noted = GoldenFleet.state()
        noted.footerMessage = "a note below the table"
        for state in [GoldenFleet.state(), noted] {
            let whole = SnapshotScreen.render(state, format: .text, width: 120, theme: theme, now: now)
            let count = state.visibleHostIndices.count
            for rows in [1, 2, 5, count - 1, count, 1_000] {
                var written: [String] = []
                SnapshotScreen.writeText(state, width: 120, now: now, rowsPerBlock: rows) { written.append($0) }
                XCTAssertEqual(written.joined(), whole, "in blocks of \(rows) rows")
                XCTAssertGreaterThanOrEqual(written.count, (count + rows - 1) / rows, "in blocks of \(rows) rows")
                // A block's rows, its banner lines, the header, the table's header and the footer.
                let longest = written.map { $0.split(separator: "\n", omittingEmptySubsequences: false).count - 1 }.max() ?? 0
                XCTAssertLessThanOrEqual(longest, 2 * rows + 4, "in blocks of \(rows) rows")
            }
        }
    }

    /// The ANSI screen in every built-in theme, and on a terminal of 8 colours.
    func testSnapshotANSIInEveryTheme() {
        let frame = DashboardLayout.snapshotFrame(for: GoldenFleet.state(), width: 120, now: now)
        GoldenFile.assert(ANSIRenderer.render(frame, theme: theme, colorCount: 8), matches: "snapshot-8-colours.ansi")
        for (name, yaml) in BuiltInThemes.all where name != theme.name {
            GoldenFile.assert(
                ANSIRenderer.render(frame, theme: ThemeLoader.builtIn(yaml, name: name)), matches: "snapshot-theme-\(name).ansi")
        }
    }

    /// `inspect --format svg|html`: the detail view with the stanza `y` shows.
    func testInspectPictures() {
        var state = GoldenFleet.state()
        state.stanzaText = PinStanza.document(for: reports[GoldenFleet.poolIndex])
        for (format, name) in [(SnapshotScreen.Format.svg, "inspect-next-chains.svg"), (.html, "inspect-next-chains.html")] {
            GoldenFile.assert(
                SnapshotScreen.renderDetail(
                    state, hostIndex: GoldenFleet.poolIndex, format: format, width: 120, theme: ThemeLoader.mono, now: now),
                matches: name)
        }
        GoldenFile.assert(
            SnapshotScreen.renderDetail(state, hostIndex: GoldenFleet.poolIndex, format: .ansi, width: 120, theme: theme, now: now),
            matches: "dashboard-detail-next-chains.ansi")
    }

    /// Local times are the state's zone's, named beside the clock.
    func testSnapshotScreenInAnotherTimeZone() throws {
        let tokyo = try XCTUnwrap(TimeZone(identifier: "Asia/Tokyo"))
        GoldenFile.assert(
            SnapshotScreen.render(GoldenFleet.state(timeZone: tokyo), format: .text, width: 120, theme: theme, now: now),
            matches: "snapshot-asia-tokyo.txt")
        var detail = GoldenFleet.state(timeZone: tokyo)
        detail.view = .detail(hostIndex: GoldenFleet.acknowledgedIndex)
        GoldenFile.assert(
            TextRenderer.render(DashboardLayout.frame(for: detail, width: 120, height: 60, now: now)),
            matches: "dashboard-detail-acknowledged-asia-tokyo.txt")
    }

    func testSnapshotScreenInASCII() {
        var state = GoldenFleet.state()
        state.asciiOnly = true
        GoldenFile.assert(
            TextRenderer.render(DashboardLayout.snapshotFrame(for: state, width: 120, now: now)), matches: "snapshot-ascii.txt")
    }

    func testDashboardTableAsTextAndANSI() {
        let frame = DashboardLayout.frame(for: GoldenFleet.state(), width: 120, height: 32, now: now)
        GoldenFile.assert(TextRenderer.render(frame), matches: "dashboard-table.txt")
        GoldenFile.assert(ANSIRenderer.render(frame, theme: theme), matches: "dashboard-table.ansi")
    }

    func testDashboardNarrowTable() {
        let frame = DashboardLayout.frame(for: GoldenFleet.state(), width: 60, height: 20, now: now)
        GoldenFile.assert(TextRenderer.render(frame), matches: "dashboard-table-60-columns.txt")
    }

    func testDashboardViews() {
        let views: [(DashboardView, String)] = [
            (.detail(hostIndex: GoldenFleet.poolIndex), "dashboard-detail-next-chains.txt"),
            (.detail(hostIndex: GoldenFleet.severalIndex), "dashboard-detail-several-probes.txt"),
            (.detail(hostIndex: GoldenFleet.acknowledgedIndex), "dashboard-detail-acknowledged.txt"),
            (.detail(hostIndex: GoldenFleet.errorIndex), "dashboard-detail-error.txt"),
            (.clients, "dashboard-clients.txt"),
            (.help, "dashboard-help.txt"),
        ]
        for (view, name) in views {
            var state = GoldenFleet.state()
            state.view = view
            GoldenFile.assert(TextRenderer.render(DashboardLayout.frame(for: state, width: 120, height: 80, now: now)), matches: name)
        }
    }

    // MARK: - Core's encoders

    func testSnapshotJSON() {
        GoldenFile.assert(JSONReport.render(reports, generatedAt: now), matches: "snapshot.json")
        GoldenFile.assert(JSONReport.render(reports, generatedAt: now, vantage: "office"), matches: "snapshot-vantage.json")
    }

    func testInspectJSONAndText() {
        let pool = reports[GoldenFleet.poolIndex]
        GoldenFile.assert(JSONReport.renderInspectedHost(pool), matches: "inspect-next-chains.json")
        GoldenFile.assert(ChainListing.text(report: pool), matches: "inspect-next-chains.txt")
        GoldenFile.assert(ChainListing.text(report: reports[GoldenFleet.hostileIndex]), matches: "inspect-hostile.txt")
        // `inspect FILE`: certificates read from a file, not a server.
        let certificates = reports[GoldenFleet.hostileIndex].levels.map(\.certificate.facts)
        GoldenFile.assert(ChainListing.text(file: "chain.pem", certificates: certificates, now: now), matches: "inspect-file.txt")
        GoldenFile.assert(ChainListing.json(file: "chain.pem", certificates: certificates, now: now), matches: "inspect-file.json")
        // `pin KEYFILE`: a key not yet in a certificate.
        let key = PublicKeyPins(
            source: "next.key", subject: nil, keyDescription: "ECDSA P-256", spkiSHA256: Fixture.digest(7), keySHA256: Fixture.digest(8))
        GoldenFile.assert(ChainListing.text(file: "next.key", keys: [key]), matches: "pin-key.txt")
        GoldenFile.assert(ChainListing.json(file: "next.key", keys: [key]), matches: "pin-key.json")
    }

    func testPrometheusExposition() {
        let cycle = PrometheusExposition.Cycle(finishedAt: now, duration: 1.25, completedCycles: 3, interval: 300)
        GoldenFile.assert(PrometheusExposition.render(reports, cycle: cycle, version: "0.0.0-golden"), matches: "metrics.prom")
        GoldenFile.assert(
            PrometheusExposition.render(reports, cycle: nil, version: "0.0.0-golden", vantage: "office"),
            matches: "metrics-vantage-before-first-cycle.prom")
        // For one release, `deprecated_series: true` adds the families the
        // folded ones replace, in their old shape.
        GoldenFile.assert(
            PrometheusExposition.render(reports, cycle: cycle, version: "0.0.0-golden", deprecatedSeries: true),
            matches: "metrics-deprecated-series.prom")
    }

    /// The families only `serve` adds: its process, its history writes and
    /// the chain changes it counted.
    func testServeOwnFamilies() {
        let figures = ProcessFigures(
            residentMemoryBytes: 25_165_824, openDescriptors: 17, maximumDescriptors: 1024, startTime: now.timeIntervalSince1970 - 3600,
            cpuSeconds: 12.5)
        let health = HistoryWriteHealth(failedWrites: 2, lastFailure: "database is locked", failing: true)
        GoldenFile.assert(
            PrometheusExposition.process(figures) + PrometheusExposition.historyWrites(health)
                + ChainChangeCounter(started: now).exposition(reports),
            matches: "metrics-serve-families.prom")
    }

    func testCheckLines() {
        let all = CheckReport.render(reports)
        XCTAssertEqual(all.exitCode, 2, "a blocked host, unacknowledged, is critical")
        GoldenFile.assert(all.text, matches: "check.txt")

        let withNextChains = CheckReport.render(reports, nextChains: true)
        GoldenFile.assert(withNextChains.text, matches: "check-next-chains.txt")

        let quiet = CheckReport.render([reports[0], reports[GoldenFleet.acknowledgedIndex]])
        XCTAssertEqual(quiet.exitCode, 0, "an acknowledged problem does not page")
        GoldenFile.assert(quiet.text, matches: "check-acknowledged.txt")

        GoldenFile.assert(CheckReport.render([]).text, matches: "check-no-hosts.txt")
    }

    /// `history`: the leaf-only host served the fixture's pinned chain a
    /// month ago, then a leaf-only one two hours ago.
    func testHistoryTextAndJSON() throws {
        let before = Fixture.report(for: GoldenFleet.hosts[1], status: .ok)
        let after = reports[1]
        let since = now.addingTimeInterval(-30 * 86_400)
        let changed = now.addingTimeInterval(-2 * 3_600)
        let entries = HistoryTimeline.entries(
            chains: [(since, try XCTUnwrap(ObservedChain(before))), (changed, try XCTUnwrap(ObservedChain(after)))],
            statuses: [before, after].enumerated().map { index, report in
                RecordedStatus(
                    date: index == 0 ? since : changed, status: report.status, severity: report.severity, reason: report.reason,
                    headline: report.headline)
            })
        let timeline = HostTimeline(
            host: after.config.host, port: after.config.port, serverName: after.config.serverName, connect: nil, entries: entries,
            renewal: nil, firstSeen: changed, lastSeen: now)
        for (format, name) in [(HistoryReportWriter.Format.text, "history.txt"), (.json, "history.json")] {
            var out = ""
            let writer = HistoryReportWriter(format: format) { out += $0 }
            writer.host(timeline, omitted: 0)
            entries.forEach(writer.entry)
            writer.finish()
            GoldenFile.assert(out, matches: name)
        }
    }
}
