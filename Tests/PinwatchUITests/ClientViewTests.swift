import Foundation
import PinwatchCore
import XCTest

@testable import PinwatchUI

/// The `c` view and the detail view's clients and lint, from reports the
/// client verdict code produced.
final class ClientViewTests: XCTestCase {
    private let now = Fixture.now
    private let bravo = 1

    /// bravo.example (leaf_only with its own pins) seen by two releases:
    /// ios 7.0 pins the leaf and a stale backup, android 5.2 the root.
    private func state() throws -> DashboardState {
        var state = Fixture.mixedState()
        let plain = try XCTUnwrap(state.reports[bravo])
        func policy(_ name: String, _ format: ClientFormat, pins: [UInt8]) -> ClientPolicy {
            let rule = ClientPinRule(
                domain: "bravo.example", pins: pins.map { Pin(kind: .spki, digest: Fixture.digest($0), text: "sha256/k\($0)") },
                origin: "\(name).plist: TSKPinnedDomains.bravo.example")
            return ClientPolicy(name: name, pins: ImportedPins(file: "\(name).plist", format: format, rules: [rule]))
        }
        // Fixture.report's leaf_only chain: leaf seed 100, intermediate 40, root 80.
        let clients = [policy("ios 7.0", .trustkit, pins: [100, 9]), policy("android 5.2", .nsc, pins: [80, 9])]
        let viewed = ClientVerdicts.apply(to: plain, clients: clients, now: now, warnDays: 21, criticalDays: 7)
        state.clients = clients.map { ($0.name, $0.pins.format) }
        state.record(viewed, forHost: bravo, at: now)
        return state
    }

    func testTheClientViewNamesTheReleaseThatBreaks() throws {
        var state = try state()
        _ = state.handle(.character("c"))
        let lines = Fixture.lines(DashboardLayout.frame(for: state, width: 120, height: 30, now: now))
        let text = lines.joined(separator: "\n")
        XCTAssertTrue(text.contains("clients: what each release sees now"), text)
        let ios = try XCTUnwrap(lines.first { $0.contains(" ios 7.0 ") })
        XCTAssertTrue(ios.contains("TrustKit configuration"), ios)
        XCTAssertTrue(ios.contains("leaf_only on bravo.example — breaks at next renewal"), ios)
        let android = try XCTUnwrap(lines.first { $0.contains(" android 5.2 ") })
        XCTAssertTrue(android.contains("ok on 1 host"), android)
        XCTAssertTrue(text.contains("bravo.example:443"), "each release lists the hosts it pins: \(text)")

        for width in [40, 80] {
            let narrow = Fixture.lines(DashboardLayout.frame(for: state, width: width, height: 12, now: now))
            XCTAssertTrue(narrow.allSatisfy { DisplayWidth.of($0) <= width }, "\(width) columns: \(narrow)")
        }
        _ = state.handle(.character("c"))
        XCTAssertEqual(state.view, .table, "c again goes back")
    }

    /// DESIGN §5 (headline): a release that sees an `ok` host whose leaf
    /// expires in 15 days is summed up as `expiring`, as its row says.
    func testClientSummaryUsesTheHeadlineOfItsRows() throws {
        let host = Fixture.host("soon.example")
        let plain = Fixture.report(for: host, status: .ok, leafDays: 15)
        let rule = ClientPinRule(
            domain: "soon.example", pins: [Pin(kind: .spki, digest: Fixture.digest(200), text: "sha256/k200")],
            origin: "app.plist: TSKPinnedDomains.soon.example")
        let client = ClientPolicy(name: "ios 8.0", pins: ImportedPins(file: "app.plist", format: .trustkit, rules: [rule]))
        let viewed = ClientVerdicts.apply(to: plain, clients: [client], now: now, warnDays: 21, criticalDays: 7)
        var state = DashboardState(configPath: "c.yaml", hosts: [host], timeZone: Fixture.utc)
        state.clients = [(client.name, client.pins.format)]
        state.record(viewed, forHost: 0, at: now)
        _ = state.handle(.character("c"))
        let lines = Fixture.lines(DashboardLayout.frame(for: state, width: 120, height: 20, now: now))
        let summary = try XCTUnwrap(lines.first { $0.contains(" ios 8.0 ") }, lines.joined(separator: "\n"))
        XCTAssertTrue(summary.contains("expiring on soon.example"), summary)
        XCTAssertFalse(summary.contains("ok on"), summary)
        let row = try XCTUnwrap(lines.first { $0.contains("soon.example:443") })
        XCTAssertTrue(row.contains("⚠ expiring"), row)
    }

    func testWithoutClientsTheViewSaysHowToGetThem() {
        var state = Fixture.mixedState()
        _ = state.handle(.character("c"))
        let text = Fixture.text(DashboardLayout.frame(for: state, width: 100, height: 20, now: now))
        XCTAssertTrue(text.contains("no clients: in the configuration (see `pinwatch import --help`)"), text)
    }

    func testTheDetailViewShowsEachReleaseAndWhatLintSays() throws {
        var state = try state()
        _ = DashboardLayout.paint(&state, width: 140, height: 60, now: now)
        _ = state.handle(.character("g"))
        for _ in 0..<6 where state.selectedHost != bravo { _ = state.handle(.down) }
        _ = state.handle(.enter)
        XCTAssertEqual(state.view, .detail(hostIndex: bravo))
        let text = Fixture.text(DashboardLayout.frame(for: state, width: 140, height: 100, now: now))
        XCTAssertTrue(text.contains(" clients (c: every host)"), text)
        XCTAssertTrue(text.contains("only the leaf matches: this release breaks at the next leaf renewal"), text)
        XCTAssertTrue(text.contains("sha256/k9 matches no certificate of the live chain (a backup, or stale)"), text)
        XCTAssertTrue(text.contains("(ios 7.0.plist: TSKPinnedDomains.bravo.example)"), text)
    }
}
