import PinwatchCore
import XCTest

@testable import PinwatchUI

final class LayoutTests: XCTestCase {
    private let now = Fixture.now

    func testEveryWidthShowsEveryHostWithinItsBounds() {
        let state = Fixture.mixedState()
        for width in [40, 80, 120, 200] {
            let frame = DashboardLayout.frame(for: state, width: width, height: 24, now: now)
            XCTAssertEqual(frame.width, width)
            XCTAssertEqual(frame.height, 24)
            let lines = Fixture.lines(frame)
            for line in lines {
                XCTAssertEqual(DisplayWidth.of(line), width, "width \(width): \(line)")
            }
            let text = lines.joined(separator: "\n")
            for name in ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"] {
                XCTAssertTrue(text.contains(name), "width \(width) lost \(name)")
            }
            XCTAssertTrue(text.contains("…"), "waiting host shows an ellipsis at width \(width)")
        }
    }

    func testWideLayoutHasAllColumnsAndNarrowDropsSome() {
        let state = Fixture.mixedState()
        let wide = Fixture.lines(DashboardLayout.frame(for: state, width: 120, height: 24, now: now))
        let header = wide.first { $0.contains("status") && $0.contains("host") } ?? ""
        for title in ["chain", "tier", "days", "proxy", "age", "since"] {
            XCTAssertTrue(header.contains(title), "120 columns lacks \(title): \(header)")
        }
        let narrow = Fixture.lines(DashboardLayout.frame(for: state, width: 40, height: 24, now: now))
        let narrowHeader = narrow.first { $0.contains("status") && $0.contains("host") } ?? ""
        XCTAssertTrue(narrowHeader.contains("chain"))
        XCTAssertFalse(narrowHeader.contains("since"))
    }

    func testRowShowsLevelsTierDaysAndSymbols() {
        let state = Fixture.mixedState()
        let lines = Fixture.lines(DashboardLayout.frame(for: state, width: 120, height: 24, now: now))
        func tableRow(_ name: String) -> String {
            lines.first { $0.contains(name + ":443") && !$0.contains("LEAF ONLY") && !$0.contains("BLOCKED") } ?? ""
        }
        let alpha = tableRow("alpha.example")
        XCTAssertTrue(alpha.contains("✓ ok"))
        XCTAssertTrue(alpha.contains("L✗ I✗ R✓"), alpha)  // the leaf pin is stale, the root pin holds
        XCTAssertTrue(alpha.contains("CA "), alpha)
        XCTAssertTrue(alpha.contains(" 60 "), alpha)
        XCTAssertTrue(alpha.contains("2m"), "status since two minutes: \(alpha)")
        let bravo = tableRow("bravo.example")
        XCTAssertTrue(bravo.contains("⚠ leaf_only"))
        XCTAssertTrue(bravo.contains("L✓ I✗ R✗"), bravo)
        XCTAssertTrue(bravo.contains("leaf"), bravo)
        let echo = tableRow("echo.example")
        XCTAssertTrue(echo.contains("L· I· R·"), "unpinned host compares nothing: \(echo)")
        let foxtrot = tableRow("foxtrot.example")
        XCTAssertTrue(foxtrot.contains("… waiting"), foxtrot)
    }

    /// DESIGN §5 (days left): the days column is the chain's earliest expiry, marked
    /// with the role that ends first when that is not the leaf.
    func testDaysColumnMarksAnIntermediateThatExpiresFirst() {
        let host = Fixture.host("short.example")
        var result = Fixture.result(for: host, status: .ok)
        result.chain[1].facts.notAfter = now.addingTimeInterval(9 * 86_400 + 3_600)
        let report = Fixture.verdict(for: host, result)
        XCTAssertEqual(report.alerts, [.expiring])
        var state = DashboardState(configPath: "/etc/pinwatch.yaml", hosts: [host], themeName: "default", timeZone: Fixture.utc)
        state.beginCycle(total: 1, at: now.addingTimeInterval(-5))
        state.record(report, forHost: 0, at: now.addingTimeInterval(-1))
        state.finishCycle(at: now)
        let lines = Fixture.lines(DashboardLayout.frame(for: state, width: 160, height: 24, now: now))
        let row = lines.first { $0.contains("short.example:443") && !Fixture.isBannerLine($0) } ?? ""
        XCTAssertTrue(row.contains(" 9I "), row)
        XCTAssertTrue(row.contains("the intermediate CN=intermediate CA 1 expires in 9 days"), row)
        XCTAssertFalse(row.contains(" 60 "), "the leaf's own days are not the host's: \(row)")

        _ = state.handle(.character("?"))
        let help = Fixture.text(DashboardLayout.frame(for: state, width: 80, height: 30, now: now))
        XCTAssertTrue(help.contains("intermediate / root expires first"), help)
    }

    /// DESIGN §5 (headline): one word per host. An `ok` host whose leaf ends
    /// in 4 days and a `leaf_only` host whose leaf ends in 3 are counted,
    /// tagged, shown and filtered as `expiring`; `/status:ok` finds
    /// neither, and JSON says the same word.
    func testHeaderRowsBannerFilterAndJSONShareOneHeadline() throws {
        let hosts = [Fixture.host("soon.example"), Fixture.host("leafy.example"), Fixture.host("fine.example")]
        var state = DashboardState(configPath: "c.yaml", hosts: hosts, timeZone: Fixture.utc)
        state.beginCycle(total: 3, at: now.addingTimeInterval(-5))
        let reports = [
            Fixture.report(for: hosts[0], status: .ok, leafDays: 4),
            Fixture.report(for: hosts[1], status: .leafOnly, leafDays: 3),
            Fixture.report(for: hosts[2], status: .ok),
        ]
        for (index, report) in reports.enumerated() { state.record(report, forHost: index, at: now) }
        state.finishCycle(at: now)
        XCTAssertEqual(reports.map(\.headline), [.expiring, .expiring, .ok])

        let lines = Fixture.lines(DashboardLayout.frame(for: state, width: 200, height: 24, now: now))
        let header = lines[0]
        XCTAssertTrue(header.contains("✓ ok 1 "), header)
        XCTAssertTrue(header.contains("✗ expiring 2 "), "in the symbol of the worst of them: \(header)")
        XCTAssertTrue(header.contains("⚠ leaf_only 0 "), header)
        for name in ["soon.example", "leafy.example"] {
            let row = lines.first { $0.contains(name + ":443") && !Fixture.isBannerLine($0) } ?? ""
            XCTAssertTrue(row.contains("✗ expiring"), row)
            XCTAssertTrue(lines.contains { $0.hasPrefix(" ✗ EXPIRING \(name):443") }, lines.joined(separator: "\n"))
        }

        state.filter = "status:expiring"
        XCTAssertEqual(Set(state.visibleHostIndices), [0, 1])
        state.filter = "status:ok"
        XCTAssertEqual(state.visibleHostIndices, [2], "an expiring host is not listed as ok")

        let json = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(JSONReport.render(reports, generatedAt: now).utf8)) as? [String: Any])
        let headlines = (json["hosts"] as? [[String: Any]])?.map { $0["headline"] as? String }
        XCTAssertEqual(headlines, ["expiring", "expiring", "ok"])
    }

    /// DESIGN §5 (headline): a host's status cell and its banner line read one
    /// headline, so they show the same symbol and the same cause.
    func testTableCellAndBannerLineNameTheSameHeadline() {
        let hosts = [Fixture.host("leafy.example"), Fixture.host("soon.example"), Fixture.host("cut.example")]
        var state = DashboardState(configPath: "c.yaml", hosts: hosts, timeZone: Fixture.utc)
        state.beginCycle(total: 3, at: now.addingTimeInterval(-5))
        let reports = [
            Fixture.report(for: hosts[0], status: .leafOnly, leafDays: 3),
            Fixture.report(for: hosts[1], status: .ok, leafDays: 15),
            Fixture.report(for: hosts[2], status: .blocked),
        ]
        for (index, report) in reports.enumerated() { state.record(report, forHost: index, at: now) }
        state.finishCycle(at: now)
        let lines = Fixture.lines(DashboardLayout.frame(for: state, width: 200, height: 24, now: now))
        for (host, report) in zip(hosts, reports) {
            let row = lines.first { $0.contains(host.displayName) && !Fixture.isBannerLine($0) } ?? ""
            XCTAssertTrue(row.contains(report.headlineText), "\(report.headlineText): \(row)")
            let banner = " \(report.headline.symbol(at: report.severity)) \(report.headline.tag) \(host.displayName): "
            XCTAssertTrue(lines.contains { $0.hasPrefix(banner) }, "\(banner)\n" + lines.joined(separator: "\n"))
        }
        XCTAssertEqual(reports.map(\.headlineText), ["✗ expiring", "⚠ expiring", "✗ blocked"])
    }

    func testErrorRowNamesTheFailureAtEveryWidth() throws {
        let state = Fixture.mixedState()
        for width in [40, 80, 120] {
            let frame = DashboardLayout.frame(for: state, width: width, height: 24, now: now)
            let row = try XCTUnwrap(
                (0..<frame.height).first {
                    frame.text(ofRow: $0).contains("delta.example") && !Fixture.isBannerLine(frame.text(ofRow: $0))
                })
            let text = frame.text(ofRow: row)
            XCTAssertTrue(text.contains("! error"), text)
            XCTAssertTrue(text.contains("refused"), "width \(width): \(text)")
            XCTAssertEqual(DisplayWidth.of(text), width)
            let cells = Array(frame.row(row))
            let kind = try XCTUnwrap(cells.indices.first { cells[$0...].prefix(7).map(\.text).joined() == "refused" })
            XCTAssertTrue(cells[kind..<kind + 7].allSatisfy { $0.style.role == .error }, "the kind is drawn as an error")
        }
        // Narrow, the error spills into the chain, tier and days cells, the
        // only room left; wide, the reason column says it and those cells
        // hold what they hold for any host without a chain.
        let narrow = Fixture.lines(DashboardLayout.frame(for: state, width: 80, height: 24, now: now))
        XCTAssertTrue(
            narrow.contains { $0.contains("delta.example") && $0.contains("refused connection") && !Fixture.isBannerLine($0) },
            narrow.joined(separator: "\n"))
        let wide = Fixture.lines(DashboardLayout.frame(for: state, width: 120, height: 24, now: now))
        let row = try XCTUnwrap(wide.first { $0.contains("delta.example") && !Fixture.isBannerLine($0) })
        XCTAssertNotNil(row.range(of: #"delta\.example:443 +— +— +— +—"#, options: .regularExpression), "chain, tier, days, proxy: \(row)")
        XCTAssertTrue(row.contains("probe failed (refused): connection refused"), row)
        XCTAssertFalse(row.contains("refused connection"), "said once, in the reason: \(row)")
    }

    func testOnlyErrorHostsStillShowTheirKindInTheNarrowestLayout() throws {
        let host = Fixture.host("down.example")
        var state = DashboardState(configPath: "c.yaml", hosts: [host], timeZone: Fixture.utc)
        state.record(Fixture.report(for: host, status: .error), forHost: 0, at: now)
        let lines = Fixture.lines(DashboardLayout.frame(for: state, width: 40, height: 10, now: now))
        let row = try XCTUnwrap(lines.first { $0.contains("down.example") && $0.contains("error") })
        XCTAssertTrue(row.contains("refused"), row)
    }

    func testCrowdedBannerStillNamesEveryAlertingHost() throws {
        let hosts = (0..<6).map { Fixture.host("bad\($0).example") }
        var state = DashboardState(configPath: "c.yaml", hosts: hosts, timeZone: Fixture.utc)
        for index in hosts.indices {
            state.record(Fixture.report(for: hosts[index], status: index < 4 ? .blocked : .leafOnly), forHost: index, at: now)
        }
        let short = Fixture.lines(DashboardLayout.frame(for: state, width: 200, height: 12, now: now))
        let leafOnly = try XCTUnwrap(short.first { $0.contains("WARNING ×2: 2 LEAF ONLY") }, short.joined(separator: "\n"))
        let blocked = try XCTUnwrap(short.first { $0.contains("CRITICAL ×4") }, short.joined(separator: "\n"))
        for name in ["bad0", "bad1", "bad2", "bad3"] {
            XCTAssertTrue(blocked.contains(name + ".example:443"), "\(name) unnamed: \(blocked)")
        }
        for name in ["bad4", "bad5"] {
            XCTAssertTrue(leafOnly.contains(name + ".example:443"), "\(name) unnamed: \(leafOnly)")
        }

        let tall = Fixture.lines(DashboardLayout.frame(for: state, width: 200, height: 40, now: now))
        XCTAssertEqual(
            tall.filter { $0.contains("BLOCKED") || $0.contains("LEAF ONLY") }.count, 6, "a tall screen has room for every sentence")
        XCTAssertFalse(tall.contains { $0.contains("×") })
    }

    func testChainCellsAreColouredByRole() throws {
        let state = Fixture.mixedState()
        let frame = DashboardLayout.frame(for: state, width: 120, height: 24, now: now)
        let row = try XCTUnwrap((0..<frame.height).first { frame.text(ofRow: $0).contains("✗ blocked   charlie") })
        let cells = Array(frame.row(row))
        let leaf = try XCTUnwrap(cells.firstIndex { $0.text == "L" })
        let intermediate = try XCTUnwrap(cells.firstIndex { $0.text == "I" })
        let root = try XCTUnwrap(cells.firstIndex { $0.text == "R" })
        XCTAssertEqual(cells[leaf].style.role, .leaf)
        XCTAssertEqual(cells[leaf + 1].style.role, .leaf)
        XCTAssertEqual(cells[intermediate].style.role, .intermediate)
        XCTAssertEqual(cells[root].style.role, .root)
    }

    /// The name loses its middle, never its port.
    func testVeryLongHostNameIsTruncatedWithEllipsis() {
        let long = String(repeating: "very-long-label.", count: 20) + "example"
        var state = DashboardState(configPath: "c.yaml", hosts: [Fixture.host(long, port: 8443)], timeZone: Fixture.utc)
        state.record(Fixture.report(for: state.hosts[0], status: .ok), forHost: 0, at: now)
        for width in [40, 50, 80, 120, 200] {
            let lines = Fixture.lines(DashboardLayout.frame(for: state, width: width, height: 12, now: now))
            let row = lines.first { $0.contains("✓ ok") && !$0.contains("pinwatch") } ?? ""
            XCTAssertTrue(row.contains("…"), "width \(width): \(row)")
            XCTAssertTrue(row.contains("ple:8443"), "width \(width): the port survives: \(row)")
            XCTAssertTrue(row.contains(" ver"), "width \(width): so does the start: \(row)")
            XCTAssertTrue(row.contains("✓ ok"))
            XCTAssertEqual(DisplayWidth.of(row), width)
        }
    }

    func testWideCharacterHostNameIsNeverSplitInTheTable() {
        let host = Fixture.host("証明書のテスト用の長いホスト名.例え.日本")
        var state = DashboardState(configPath: "c.yaml", hosts: [host], timeZone: Fixture.utc)
        state.record(Fixture.report(for: host, status: .ok), forHost: 0, at: now)
        for width in [40, 41, 80] {
            let frame = DashboardLayout.frame(for: state, width: width, height: 10, now: now)
            for row in 0..<frame.height {
                for column in 0..<frame.width where frame[row, column].text.isEmpty {
                    XCTAssertGreaterThan(column, 0)
                    XCTAssertEqual(DisplayWidth.of(frame[row, column - 1].text), 2, "orphan continuation at \(row),\(column)")
                }
                for column in 0..<frame.width where DisplayWidth.of(frame[row, column].text) == 2 {
                    XCTAssertTrue(column + 1 < frame.width && frame[row, column + 1].text.isEmpty, "split at \(row),\(column)")
                }
            }
        }
    }

    func testZeroOneAndThousandHosts() throws {
        let empty = DashboardState(configPath: "c.yaml", hosts: [], timeZone: Fixture.utc)
        let emptyText = Fixture.text(DashboardLayout.frame(for: empty, width: 80, height: 24, now: now))
        XCTAssertTrue(emptyText.contains("no hosts configured"))
        XCTAssertTrue(emptyText.contains("0 hosts"))

        var one = DashboardState(configPath: "c.yaml", hosts: [Fixture.host("solo.example")], timeZone: Fixture.utc)
        one.record(Fixture.report(for: one.hosts[0], status: .ok), forHost: 0, at: now)
        XCTAssertTrue(Fixture.text(DashboardLayout.frame(for: one, width: 80, height: 24, now: now)).contains("1 host "))

        let hosts = (0..<1000).map { Fixture.host("h\($0).example") }
        var many = DashboardState(configPath: "c.yaml", hosts: hosts, timeZone: Fixture.utc)
        for index in hosts.indices {
            many.record(Fixture.report(for: hosts[index], status: index == 500 ? .blocked : .ok), forHost: index, at: now)
        }
        _ = DashboardLayout.paint(&many, width: 80, height: 24, now: now)
        let lines = Fixture.lines(DashboardLayout.frame(for: many, width: 80, height: 24, now: now))
        XCTAssertTrue(lines.contains { $0.contains("1000 hosts") })
        // Worst first: the blocked host is the first row; rows beyond the screen are not drawn.
        let firstRow = try XCTUnwrap(lines.firstIndex { $0.contains(".example:443") && !$0.contains("BLOCKED") })
        XCTAssertTrue(lines[firstRow].contains("h500.example"), lines[firstRow])
        XCTAssertFalse(lines.contains { $0.contains("h999.example") })
        let snapshot = DashboardLayout.snapshotFrame(for: many, width: 80, now: now)
        XCTAssertEqual(Fixture.lines(snapshot).filter { $0.contains(".example:443") && $0.contains("✓ ok") }.count, 999)
    }

    func testLeafOnlyBannerNamesHostAndDays() throws {
        let state = Fixture.mixedState()
        let lines = Fixture.lines(DashboardLayout.frame(for: state, width: 200, height: 24, now: now))
        let banner = lines.first { $0.contains("LEAF ONLY") } ?? ""
        XCTAssertTrue(banner.contains("bravo.example:443"), banner)
        XCTAssertTrue(banner.contains("only the leaf pin still matches: breaks at the next leaf renewal"), banner)
        XCTAssertTrue(banner.contains("(leaf expires in 23 days)"), banner)
        XCTAssertTrue(lines.contains { $0.contains("BLOCKED charlie.example:443") })
        let frame = DashboardLayout.frame(for: state, width: 200, height: 24, now: now)
        let bannerRow = try XCTUnwrap((0..<frame.height).first { frame.text(ofRow: $0).contains("LEAF ONLY") })
        XCTAssertTrue(frame.row(bannerRow).allSatisfy { $0.style.role == .banner })
    }

    func testLeafOnlyStaysInTheLiveBannerBehindManyBlockedHosts() {
        let hosts = (1...4).map { Fixture.host("down\($0).example") } + [Fixture.host("renewing.example")]
        var state = DashboardState(configPath: "c.yaml", hosts: hosts, timeZone: Fixture.utc)
        for index in 0..<4 {
            state.record(Fixture.report(for: hosts[index], status: .blocked), forHost: index, at: now)
        }
        state.record(Fixture.report(for: hosts[4], status: .leafOnly, leafDays: 12), forHost: 4, at: now)
        // 14 rows leave room for three banner lines: fewer than the five alerts.
        let lines = Fixture.lines(DashboardLayout.frame(for: state, width: 200, height: 14, now: now))
        let leafOnly = lines.first { $0.contains("LEAF ONLY") } ?? ""
        XCTAssertTrue(leafOnly.contains("renewing.example:443 (leaf only, 12d)"), leafOnly)
        XCTAssertTrue(leafOnly.contains("break at next renewal"), leafOnly)
        XCTAssertTrue(lines.contains { $0.contains("CRITICAL ×4") && $0.contains("down4.example:443") }, lines.joined(separator: "\n"))
        let snapshot = Fixture.lines(DashboardLayout.snapshotFrame(for: state, width: 200, now: now))
        XCTAssertEqual(snapshot.filter { $0.contains("BLOCKED down") }.count, 4, "the snapshot keeps one line per host")
    }

    /// A host going ok → error is not silent: it gets a banner
    /// line with its reason, and the header counts it as unknown.
    func testHostGoingDarkGetsABannerLine() {
        let host = Fixture.host("api.example")
        var state = DashboardState(configPath: "c.yaml", hosts: [host], timeZone: Fixture.utc)
        state.record(Fixture.report(for: host, status: .ok), forHost: 0, at: now)
        XCTAssertFalse(
            Fixture.lines(DashboardLayout.frame(for: state, width: 120, height: 12, now: now)).contains { Fixture.isBannerLine($0) })
        state.record(Fixture.report(for: host, status: .error), forHost: 0, at: now)
        let lines = Fixture.lines(DashboardLayout.frame(for: state, width: 120, height: 12, now: now))
        XCTAssertTrue(
            lines.contains { $0.hasPrefix(" ! ERROR api.example:443: probe failed (refused): connection refused") },
            lines.joined(separator: "\n"))
        XCTAssertTrue(lines[0].contains("1 unknown"), lines[0])
    }

    /// Once the user moves the selection, it stays on that host
    /// when the rows re-sort.
    func testChosenSelectionFollowsItsHostAcrossReSorts() {
        var state = Fixture.mixedState()
        XCTAssertEqual(state.selectedHost, 2, "charlie (blocked) is on top")
        _ = state.handle(.down)
        XCTAssertEqual(state.selectedHost, 3, "delta, the next row")
        let delta = state.hosts[3]
        state.record(Fixture.report(for: delta, status: .ok), forHost: 3, at: now)
        XCTAssertEqual(state.selectedHost, 3, "still delta, now further down")
        XCTAssertNotEqual(state.visibleHostIndices.firstIndex(of: 3), 1)
    }

    /// A snapshot says the day and the zone of its cycle; the
    /// live screen keeps the short clock.
    func testSnapshotHeaderIsSelfDated() {
        let state = Fixture.mixedState()
        let snapshot = DashboardLayout.snapshotFrame(for: state, width: 120, now: now).text(ofRow: 1)
        XCTAssertNotNil(snapshot.range(of: #"last cycle \d{4}-\d{2}-\d{2} \d{2}:\d{2} (UTC|GMT)"#, options: .regularExpression), snapshot)
        let live = DashboardLayout.frame(for: state, width: 120, height: 24, now: now).text(ofRow: 1)
        XCTAssertNotNil(live.range(of: #"last cycle \d{2}:\d{2}:\d{2} "#, options: .regularExpression), live)
    }

    func testExpiredHostGetsABannerToo() {
        let host = Fixture.host("old.example", pins: PinSet())
        var state = DashboardState(configPath: "c.yaml", hosts: [host], timeZone: Fixture.utc)
        state.record(Fixture.report(for: host, status: .unpinned, leafDays: -3), forHost: 0, at: now)
        let text = Fixture.text(DashboardLayout.frame(for: state, width: 120, height: 12, now: now))
        XCTAssertTrue(text.contains("EXPIRED old.example:443: the leaf certificate expired 3 days ago"), text)
    }

    func testHeaderShowsCountsCycleAndProxy() {
        var state = Fixture.mixedState()
        state.proxyIndicator = "proxy http://proxy.internal:3128 (https_proxy)"
        let lines = Fixture.lines(DashboardLayout.frame(for: state, width: 200, height: 24, now: now))
        XCTAssertTrue(lines[0].contains(" pinwatch.yaml "), lines[0])
        XCTAssertTrue(lines[0].contains("6 hosts"))
        XCTAssertTrue(lines[0].contains("✓ ok 1"), lines[0])
        XCTAssertTrue(lines[0].contains("⚠ leaf_only 1"), lines[0])
        XCTAssertTrue(lines[1].contains("last cycle 11:06:39"), lines[1])
        XCTAssertTrue(lines[1].contains("next in 42s"), lines[1])
        XCTAssertTrue(lines[1].contains("http://proxy.internal:3128"), lines[1])
        state.beginCycle(total: 200, at: now)
        for index in 0..<37 {
            let host = state.hosts[index % 6]
            state.record(Fixture.report(for: host, status: host.pins.isEmpty ? .unpinned : .ok), forHost: index % 6, at: now)
        }
        let probing = Fixture.lines(DashboardLayout.frame(for: state, width: 200, height: 24, now: now))
        XCTAssertTrue(probing[1].contains("probing 37/200"), probing[1])
    }

    func testTooSmallTerminal() {
        let state = Fixture.mixedState()
        let frame = DashboardLayout.frame(for: state, width: 20, height: 5, now: now)
        XCTAssertEqual(frame.width, 20)
        XCTAssertEqual(frame.height, 5)
        let text = Fixture.text(frame)
        XCTAssertTrue(text.contains("terminal too small"), text)
        XCTAssertFalse(text.contains("alpha"))
        for (width, height) in [(39, 24), (80, 7), (1, 1), (0, 0)] {
            let small = DashboardLayout.frame(for: state, width: width, height: height, now: now)
            XCTAssertEqual(small.cells.count, max(0, width) * max(0, height))
        }
        XCTAssertFalse(Fixture.text(DashboardLayout.frame(for: state, width: 40, height: 8, now: now)).contains("too small"))
    }

    func testEverySizeFromTwentyByFiveDrawsWithoutLeavingTheFrame() {
        var state = Fixture.mixedState()
        state.footerMessage = "rotated the intermediate of payments.demo"
        for view in [DashboardView.table, .help, .detail(hostIndex: 1)] {
            state.view = view
            for width in stride(from: 20, through: 130, by: 11) {
                for height in stride(from: 5, through: 30, by: 5) {
                    let frame = DashboardLayout.frame(for: state, width: width, height: height, now: now)
                    XCTAssertEqual(frame.cells.count, width * height)
                }
            }
        }
    }

    func testWorstFirstThenConfigurationOrder() {
        var state = Fixture.mixedState()
        func order() -> [String] {
            let lines = Fixture.lines(DashboardLayout.frame(for: state, width: 120, height: 24, now: now))
            return lines.compactMap { line in
                ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"].first {
                    line.contains("\($0).example:443") && !Fixture.isBannerLine(line)
                }
            }
        }
        // By severity: critical (blocked), unknown (error), warning
        // (leaf_only), ok (ok, unpinned), then the host still waiting.
        XCTAssertEqual(order(), ["charlie", "delta", "bravo", "alpha", "echo", "foxtrot"])
        _ = state.handle(.character("s"))
        XCTAssertEqual(order(), ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"])
        _ = state.handle(.character("s"))
        XCTAssertEqual(order().first, "charlie")
    }

    func testFilterShowsOnlyMatchingHosts() {
        var state = Fixture.mixedState()
        for key in [Key.character("/"), .character("C"), .character("h"), .character("a"), .enter] { _ = state.handle(key) }
        XCTAssertEqual(state.filter, "Cha")
        let text = Fixture.text(DashboardLayout.frame(for: state, width: 120, height: 24, now: now))
        let rows = text.split(separator: "\n").filter { $0.contains(".example:443") && !Fixture.isBannerLine($0) }
        XCTAssertEqual(rows.count, 1)
        XCTAssertTrue(rows[0].contains("charlie"))
        XCTAssertTrue(text.contains("filter “Cha”"))
        state.filter = "zzz"
        XCTAssertTrue(
            Fixture.text(DashboardLayout.frame(for: state, width: 120, height: 24, now: now)).contains("no host matches the filter"))
    }

    func testFooterShowsKeysAndMessage() {
        var state = Fixture.mixedState()
        state.footerMessage = "rotated the intermediate of payments.demo"
        let lines = Fixture.lines(DashboardLayout.frame(for: state, width: 120, height: 24, now: now))
        XCTAssertTrue(lines[22].contains("rotated the intermediate of payments.demo"))
        XCTAssertTrue(lines[23].contains("q quit"), lines[23])
        XCTAssertTrue(lines[23].contains("? help"))
        _ = state.handle(.character("/"))
        _ = state.handle(.character("x"))
        XCTAssertTrue(Fixture.lines(DashboardLayout.frame(for: state, width: 120, height: 24, now: now))[23].contains("/ x▏"))
    }

    func testSelectionBarOnlyOnTheLiveScreen() {
        let state = Fixture.mixedState()
        let live = DashboardLayout.frame(for: state, width: 80, height: 24, now: now)
        let selectedRows = (0..<live.height).filter { row in live.row(row).contains { $0.style.selected } }
        XCTAssertEqual(selectedRows.count, 1)
        // The selection starts on the top row of the sorted table
        // (the worst host), not on the first configured one.
        XCTAssertTrue(live.text(ofRow: selectedRows[0]).contains("charlie.example"), live.text(ofRow: selectedRows[0]))
        let snapshot = DashboardLayout.snapshotFrame(for: state, width: 80, now: now)
        XCTAssertFalse(snapshot.cells.contains { $0.style.selected })
        XCTAssertFalse(Fixture.text(snapshot).contains("q quit"))
        XCTAssertEqual(snapshot.height, 2 + 3 + 1 + 6, "header, three banner lines (critical, unknown, warning), column titles, six rows")
    }

    /// 80 columns: the config file's name (not its folder), and zero
    /// status counts make room for the non-zero ones.
    func testHeaderAtEightyColumnsKeepsWhatIsNonZero() {
        var state = Fixture.mixedState()
        state.configPath = "/etc/pinwatch/production/very/long/folder/names/pinwatch.yaml"

        let wide = Fixture.lines(DashboardLayout.frame(for: state, width: 200, height: 24, now: now))[0]
        XCTAssertTrue(wide.contains(" pinwatch.yaml "), wide)
        XCTAssertFalse(wide.contains("/etc/pinwatch"), wide)
        var sparse = DashboardState(
            configPath: state.configPath, hosts: [Fixture.host("one.example")], themeName: "default", timeZone: Fixture.utc)
        sparse.record(Fixture.report(for: sparse.hosts[0], status: .leafOnly, leafDays: 23), forHost: 0, at: now)
        let narrow = Fixture.lines(DashboardLayout.frame(for: sparse, width: 80, height: 24, now: now))[0]
        XCTAssertTrue(narrow.contains("⚠ leaf_only 1"), narrow)
        XCTAssertFalse(narrow.contains(" 0 "), "zero counts are dropped first: \(narrow)")
        let roomy = Fixture.lines(DashboardLayout.frame(for: sparse, width: 160, height: 24, now: now))[0]
        XCTAssertTrue(roomy.contains("✓ ok 0"), "with room, every count shows: \(roomy)")
    }

    /// Two rows with one name: each says which backend it is.
    func testRowsOfOneHostBehindTwoBackendsShowTheirAddress() {
        let hosts = [
            HostConfig(host: "api.example.com", connectAddress: "192.0.2.10", pins: Fixture.pinned),
            HostConfig(host: "api.example.com", connectAddress: "192.0.2.11", pins: Fixture.pinned),
            HostConfig(host: "solo.example.com", connectAddress: "192.0.2.12", pins: Fixture.pinned),
        ]
        let state = DashboardState(configPath: "c.yaml", hosts: hosts, timeZone: Fixture.utc)
        let text = Fixture.text(DashboardLayout.frame(for: state, width: 120, height: 12, now: now))
        XCTAssertTrue(text.contains("api.example.com:443→192.0.2.10"), text)
        XCTAssertTrue(text.contains("api.example.com:443→192.0.2.11"), text)
        XCTAssertTrue(text.contains("solo.example.com:443 "), "a unique name needs no address: \(text)")
        XCTAssertFalse(text.contains("→192.0.2.12"), text)
    }

    /// At 200 columns an error row's reason is whole: spare width goes to
    /// it, not to a host column wider than any host name.
    func testSpareWidthGoesToTheReasonNotTheHostColumn() {
        let hosts = [Fixture.host("down.example"), Fixture.host("up.example")]
        var state = DashboardState(configPath: "c.yaml", hosts: hosts, timeZone: Fixture.utc)
        let failure = ProbeFailure(kind: .timeout, message: "timed out after 5 s during the TLS handshake (203.0.113.10:443)")
        let report = Fixture.verdict(for: hosts[0], ProbeResult(failure: failure, elapsed: 5, finishedAt: now))
        state.record(report, forHost: 0, at: now)
        state.record(Fixture.report(for: hosts[1], status: .ok), forHost: 1, at: now)
        let row = Fixture.lines(DashboardLayout.frame(for: state, width: 200, height: 12, now: now)).first {
            $0.contains("down.example:443") && $0.contains("timeout")
        }
        XCTAssertTrue(row?.contains("timed out after 5 s during the TLS handshake (203.0.113.10:443)") ?? false, row ?? "no row")
        let wide = Fixture.lines(DashboardLayout.frame(for: state, width: 200, height: 12, now: now))
        XCTAssertTrue(wide.contains { $0.contains("since reason") }, "a reason column on a wide screen")
        XCTAssertTrue(wide.contains { $0.contains("up.example:443") && $0.contains(state.reports[1]?.reason ?? "?") }, "every row says why")
        let narrow = Fixture.lines(DashboardLayout.frame(for: state, width: 80, height: 12, now: now))
        XCTAssertFalse(narrow.contains { $0.contains("reason") }, "no room for it at 80 columns")
    }

    /// `/status:NAME` keeps hosts by status or severity.
    func testFilterByStatusOrSeverity() {
        var state = Fixture.mixedState()
        func filtered(_ text: String) -> [String] {
            state.filter = text
            return state.visibleHostIndices.map { state.hosts[$0].host }
        }
        XCTAssertEqual(filtered("status:blocked"), ["charlie.example"])
        XCTAssertEqual(filtered("status:leaf"), ["bravo.example"], "a prefix is enough")
        XCTAssertEqual(filtered("status:leaf-only"), ["bravo.example"])
        XCTAssertEqual(Set(filtered("status:critical")), ["charlie.example"])
        XCTAssertEqual(filtered("status:waiting"), ["foxtrot.example"], "a host without a result yet")
        XCTAssertEqual(filtered("status:nonsense"), [])
        XCTAssertEqual(filtered("bravo"), ["bravo.example"], "plain text still matches names")
    }

    /// Rows below the screen and hosts the filter hides are announced in
    /// the footer, with where the selection is.
    func testFooterSaysWhichRowsAreShownAndWhatTheFilterHides() {
        let hosts = (0..<41).map { Fixture.host("h\($0).example") }
        var state = DashboardState(configPath: "c.yaml", hosts: hosts, timeZone: Fixture.utc)
        state.sortOrder = .configuration
        _ = DashboardLayout.paint(&state, width: 120, height: 24, now: now)
        func footer() -> String { Fixture.lines(DashboardLayout.frame(for: state, width: 120, height: 24, now: now)).last ?? "" }
        let capacity = DashboardLayout.tableCapacity(for: state, height: 24)
        XCTAssertTrue(footer().contains("rows 1–\(capacity) of 41 · #1"), footer())
        for _ in 0..<30 { _ = state.handle(.down) }
        let lines = Fixture.lines(DashboardLayout.frame(for: state, width: 120, height: 24, now: now))
        XCTAssertTrue(lines.last?.contains("rows \(31 - capacity + 1)–31 of 41 · #31") ?? false, lines.last ?? "")
        XCTAssertTrue(lines.contains { $0.contains("h30.example") }, "the selected row is on screen")
        _ = state.handle(.character("/"))
        for character in "h1" { _ = state.handle(.character(character)) }
        _ = state.handle(.enter)
        XCTAssertEqual(state.visibleHostIndices.count, 11)
        XCTAssertTrue(footer().contains("30 hidden by the filter"), footer())
        XCTAssertFalse(footer().contains("rows "), "all 11 fit: \(footer())")
    }

    func testHelpOverlayListsKeys() {
        var state = Fixture.mixedState()
        _ = state.handle(.character("?"))
        XCTAssertEqual(state.view, .help)
        let text = Fixture.text(DashboardLayout.frame(for: state, width: 80, height: 24, now: now))
        XCTAssertTrue(text.contains("help"))
        XCTAssertTrue(text.contains("filter by name, or status:NAME"))
        XCTAssertTrue(text.contains("next colour theme"))
        _ = state.handle(.character("x"))
        XCTAssertEqual(state.view, .table)
    }

    /// A bordered box; at 50×15 the entries that do not fit are counted,
    /// not silently lost.
    func testHelpBoxHasCornersAndSaysWhatDoesNotFit() {
        var state = Fixture.mixedState()
        _ = state.handle(.character("?"))
        let tall = Fixture.lines(DashboardLayout.frame(for: state, width: 80, height: 30, now: now))
        XCTAssertEqual(tall.filter { $0.contains("┌ help — any key closes") && $0.contains("┐") }.count, 1, tall.joined(separator: "\n"))
        XCTAssertEqual(tall.filter { $0.contains("└") && $0.contains("┘") }.count, 1)
        XCTAssertFalse(tall.joined().contains("more: a taller terminal"))
        XCTAssertTrue(tall.joined().contains("pin matched / not / no pins"), "every entry fits at 30 rows")

        let small = Fixture.lines(DashboardLayout.frame(for: state, width: 50, height: 15, now: now))
        let text = small.joined(separator: "\n")
        XCTAssertTrue(text.contains("┌") && text.contains("┘"), text)
        let shownEntries = HelpLayout.entries.filter { text.contains($0.1) }.count
        XCTAssertTrue(text.contains("… \(HelpLayout.entries.count - shownEntries) more: a taller terminal shows them"), text)
    }

    func testDetailViewShowsTheWholeChain() throws {
        var state = Fixture.mixedState()
        _ = DashboardLayout.paint(&state, width: 120, height: 60, now: now)
        let bravo = 1
        // Worst first: charlie (blocked), delta (error), then bravo (leaf_only).
        _ = state.handle(.character("g"))
        _ = state.handle(.down)
        _ = state.handle(.down)
        XCTAssertEqual(state.selectedHost, bravo)
        _ = state.handle(.enter)
        XCTAssertEqual(state.view, .detail(hostIndex: bravo))
        let text = Fixture.text(DashboardLayout.frame(for: state, width: 120, height: 90, now: now))
        let report = try XCTUnwrap(state.reports[bravo])
        XCTAssertTrue(text.contains("detail: bravo.example:443"))
        XCTAssertTrue(text.contains("level 0 · leaf"))
        XCTAssertTrue(text.contains("level 1 · intermediate"))
        XCTAssertTrue(text.contains("level 2 · root"))
        XCTAssertTrue(text.contains("CN=bravo.example"))
        XCTAssertTrue(text.contains("ECDSA P-256"))
        let leafFacts = report.levels[0].certificate.facts
        XCTAssertTrue(text.contains("sha256/" + Data(leafFacts.spkiSHA256).base64EncodedString()))
        XCTAssertTrue(text.contains("key:" + Data(leafFacts.keySHA256).base64EncodedString()))
        XCTAssertTrue(text.contains("cert:" + leafFacts.certSHA256.map { String(format: "%02x", $0) }.joined()))
        XCTAssertTrue(text.contains("✓ matched leaf tier: " + Fixture.leafPin.text))
        XCTAssertTrue(text.contains("23 days left"))
        XCTAssertTrue(text.contains("12 ms"))
        XCTAssertTrue(text.contains("press y"))
        XCTAssertEqual(state.handle(.character("y")), [.copyPins(hostIndex: bravo)])
        state.stanzaText = "pins:\n  ca: []\n  leaf:\n    - sha256/AAAA"
        let withStanza = Fixture.text(DashboardLayout.frame(for: state, width: 120, height: 90, now: now))
        XCTAssertTrue(withStanza.contains("    - sha256/AAAA"))
        _ = state.handle(.escape)
        XCTAssertEqual(state.view, .table)
        XCTAssertNil(state.stanzaText)
    }

    func testDetailOfErrorHostShowsTheError() {
        var state = Fixture.mixedState()
        state.view = .detail(hostIndex: 3)
        let text = Fixture.text(DashboardLayout.frame(for: state, width: 100, height: 30, now: now))
        XCTAssertTrue(text.contains("refused: connection refused"), text)
        XCTAssertTrue(text.contains("chain: none obtained"), text)
        XCTAssertFalse(text.contains("chain: 0 levels"), text)
        XCTAssertFalse(text.contains("press y"), "no chain, no stanza to offer: \(text)")
    }

    /// The detail view agrees with the row. An `ok` host
    /// whose leaf expires in 4 days, past its estimated renewal, is not
    /// "ok since" nor "renews ~today"; a level without pins has one `·`,
    /// not two; the probe's time carries its zone.
    func testDetailOfAnExpiringHostAgreesWithItsRow() throws {
        let host = Fixture.host("soon.example", pins: PinSet(ca: [Fixture.caPin]))
        let history = HostHistory(
            statusSince: now.addingTimeInterval(-10 * 86_400),
            renewal: RenewalEstimate(date: now.addingTimeInterval(-3_600), basis: .lifetime))
        let report = Fixture.report(for: host, status: .ok, leafDays: 4).with(history: history, now: now)
        XCTAssertEqual(report.headline, .expiring)
        var state = DashboardState(configPath: "c.yaml", hosts: [host], timeZone: TimeZone(identifier: "Europe/Berlin")!)
        state.beginCycle(total: 1, at: now.addingTimeInterval(-5))
        state.record(report, forHost: 0, at: now)
        state.finishCycle(at: now)
        state.view = .detail(hostIndex: 0)
        _ = DashboardLayout.paint(&state, width: 120, height: 60, now: now)
        let text = Fixture.text(DashboardLayout.frame(for: state, width: 120, height: 60, now: now))
        XCTAssertTrue(text.contains("✗ expiring"), text)
        XCTAssertNil(text.range(of: #"since +ok since"#, options: .regularExpression), text)
        XCTAssertTrue(text.contains("status ok since 2026-11-08 11:06 UTC (now expiring)"), text)
        XCTAssertFalse(text.contains("renews ~"), text)
        XCTAssertTrue(text.contains("renewal overdue: the leaf expires in 4 days and has not been renewed"), text)
        XCTAssertFalse(text.contains("· ·"), "one separator, not a doubled dot: \(text)")
        XCTAssertTrue(text.contains("── level 0 · leaf · sent by the server ──"), text)
        XCTAssertTrue(text.contains("── level 2 · root ✓ · from the trust store ──"), text)
        XCTAssertTrue(text.contains("finished 2026-11-18 11:06 UTC"), text)

        state.view = .table
        let header = Fixture.text(DashboardLayout.frame(for: state, width: 120, height: 20, now: now))
        XCTAssertNotNil(header.range(of: #"last cycle \d{2}:\d{2}:\d{2} (CET|CEST|GMT\+1) "#, options: .regularExpression), header)
    }

    func testHostileCertificateSubjectNeverReachesOutputRaw() {
        let hostile = "CN=\u{1B}]0;pwned\u{07}\u{1B}[31mred\u{9B}2J\u{202E}evil"
        let host = Fixture.host("hostile.example")
        var state = DashboardState(configPath: "c\u{1B}[1m.yaml", hosts: [host], timeZone: Fixture.utc)
        state.record(Fixture.report(for: host, status: .blocked, leafSubject: hostile), forHost: 0, at: now)
        state.view = .detail(hostIndex: 0)
        _ = DashboardLayout.paint(&state, width: 120, height: 50, now: now)
        let frame = DashboardLayout.frame(for: state, width: 120, height: 50, now: now)
        let text = TextRenderer.render(frame)
        XCTAssertTrue(text.contains("pwned"), "the subject is shown, defused")
        XCTAssertFalse(text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x9B || $0.value == 0x202E })
        let ansi = ANSIRenderer.render(frame, theme: ThemeLoader.builtInDefault)
        XCTAssertFalse(ansi.contains("\u{1B}]"))
        XCTAssertFalse(ansi.contains("\u{1B}[31mred"))
        XCTAssertFalse(ansi.unicodeScalars.contains { $0.value == 0x07 || $0.value == 0x9B })
    }
}
