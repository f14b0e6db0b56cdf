import Foundation
import PinwatchCore
import XCTest

@testable import PinwatchUI

/// The documents single commands print about the golden fleet (`init`,
/// `catalogue`, `lint --format json`, `preflight`), byte for byte against
/// `Tests/Golden/`, as `GoldenOutputTests` does for the fleet's views.
final class GoldenCommandOutputTests: XCTestCase {
    private let now = GoldenFleet.now
    private let reports = GoldenFleet.reports

    /// `init`: the first configuration written from what each host served,
    /// with the ones that failed commented out.
    func testInitialConfiguration() {
        GoldenFile.assert(InitialConfig.yaml(reports: reports, timeout: "10s", trust: .system, now: now), matches: "init.yaml")
    }

    func testCatalogueListings() throws {
        let catalogue = GoldenFleet.catalogue
        let family = try XCTUnwrap(catalogue.families.first)
        GoldenFile.assert(CatalogueListing.text(catalogue, now: now), matches: "catalogue.txt")
        GoldenFile.assert(CatalogueListing.json(catalogue, now: now), matches: "catalogue.json")
        GoldenFile.assert(CatalogueListing.showText(family), matches: "catalogue-show.txt")
        GoldenFile.assert(CatalogueListing.showJSON(family), matches: "catalogue-show.json")
    }

    func testLintJSON() {
        var config = Config(path: "/etc/pinwatch/pinwatch.yaml", hosts: GoldenFleet.hosts)
        config.clients = GoldenFleet.clients
        let findings = ClientLint.findings(config: config, reports: reports, now: now)
        GoldenFile.assert(
            LintJSON.render(findings, clients: config.clients.count, hosts: reports.count, nothingChecked: false), matches: "lint.json")
    }

    /// `preflight` of the pool host's chain: its pins survive, one client
    /// release does not.
    func testPreflightTextJSONAndStanza() {
        let preflight = PreflightReport(
            report: reports[GoldenFleet.poolIndex], own: GoldenFleet.poolOwnVerdict, configured: true, source: "next.pem")
        GoldenFile.assert(preflight.text, matches: "preflight.txt")
        GoldenFile.assert(preflight.json(generatedAt: now), matches: "preflight.json")
        GoldenFile.assert(preflight.stanza, matches: "preflight-stanza.yaml")
    }

    /// What `hooks:` read on standard input (one JSON line, newline ended),
    /// here for each host first seen in trouble, then for one recovering.
    func testHookEvents() {
        var transitions = reports.compactMap { SeverityTransition.between(nil, $0, at: now) }
        if let recovery = SeverityTransition.between(reports[1], reports[0], at: now) { transitions.append(recovery) }
        let lines = transitions.enumerated().map { index, transition in
            var event = transition
            event.id = "golden-\(index + 1)"
            event.sequence = index + 1
            return event.json
        }
        GoldenFile.assert(lines.joined(), matches: "hook-events.jsonl")
    }
}
