import Foundation
import XCTest

@testable import PinwatchCore

final class ClientLintTests: XCTestCase {
    private let now = Fixtures.now

    private func policy(_ name: String, _ format: ClientFormat = .trustkit, rules: [ClientPinRule], notes: [ClientSourceNote] = [])
        -> ClientPolicy
    {
        ClientPolicy(name: name, pins: ImportedPins(file: "\(name).plist", format: format, rules: rules, notes: notes))
    }

    private func rule(_ pins: [UInt8], domain: String = "api.example.com", enforced: Bool = true, expiresInDays: Double? = nil)
        -> ClientPinRule
    {
        ClientPinRule(
            domain: domain, pins: pins.map(Fixtures.spkiPin), expiration: expiresInDays.map { now.addingTimeInterval($0 * Fixtures.day) },
            enforced: enforced, origin: "Info.plist: \(domain)")
    }

    private func messages(_ client: ClientPolicy) -> [String] {
        let host = HostConfig(host: "api.example.com")
        let report = ClientVerdicts.apply(
            to: Fixtures.report(host, Fixtures.result(chain: Fixtures.chain())), clients: [client], now: now, warnDays: 21, criticalDays: 7)
        var config = Config(hosts: [host])
        config.clients = [client]
        return ClientLint.findings(config: config, reports: [report], now: now).map(\.text)
    }

    func testOnlyTheLeafMatching() {
        let found = messages(policy("ios 7.0", rules: [rule([1, 9])]))
        XCTAssertTrue(
            found.contains(
                "warning: ios 7.0: api.example.com: only the leaf matches: this release breaks at the next leaf renewal (Info.plist: api.example.com)"
            ),
            "\(found)")
        XCTAssertTrue(found.contains { $0.hasPrefix("info: ios 7.0: api.example.com: \(Fixtures.spkiPin(9).text) matches no certificate") })
    }

    func testNoBackupWhenEveryPinIsInTheLiveChain() {
        let found = messages(policy("ios", rules: [rule([2, 3])]))
        XCTAssertEqual(found.filter { $0.contains("no backup pin") }.count, 1, "\(found)")
        XCTAssertFalse(found.contains { $0.contains("only the leaf") })
    }

    /// Lint said "0 warnings" and exited 0 for hosts it never reached.
    func testAHostThatCouldNotBeProbedIsNamedWithWhy() {
        let host = HostConfig(host: "api.example.com")
        let failed = ProbeResult(failure: ProbeFailure(kind: .refused, message: "connection refused"), finishedAt: now)
        let client = policy("ios", rules: [rule([2, 9])])
        let report = ClientVerdicts.apply(
            to: Fixtures.report(host, failed), clients: [client], now: now, warnDays: 21, criticalDays: 7)
        var config = Config(hosts: [host])
        config.clients = [client]
        let found = ClientLint.findings(config: config, reports: [report], now: now).map(\.text)
        XCTAssertEqual(
            found,
            [
                "warning: ios: api.example.com:443: not probed, so its pins were not checked: probe failed (refused): connection refused"
                    + " (Info.plist: api.example.com)"
            ])
        XCTAssertEqual(ClientLint.checkedHostCount([report]), 0, "nothing was checked")
        let reached = ClientVerdicts.apply(
            to: Fixtures.report(host, Fixtures.result(chain: Fixtures.chain())), clients: [client], now: now, warnDays: 21,
            criticalDays: 7)
        XCTAssertEqual(ClientLint.checkedHostCount([report, reached]), 1)
    }

    /// TrustKit refuses a domain with one hash (its importer says so);
    /// Android's documentation asks for a backup pin; OkHttp, curl and HPKP
    /// break the same way on a key change.
    func testOnePinWithoutABackupIsFlaggedForEveryFormat() {
        for format in [ClientFormat.nsc, .okhttp, .curl, .hpkp] {
            let found = messages(policy("app", format, rules: [rule([2])])).filter { $0.contains("no backup") }
            XCTAssertEqual(
                found,
                [
                    "warning: app: api.example.com: one pin and no backup: a key change breaks this release"
                        + " (Android and TrustKit require a backup pin) (Info.plist: api.example.com)"
                ], "\(format)")
            XCTAssertEqual(
                messages(policy("app", format, rules: [rule([2, 2])])).filter { $0.contains("one pin") }.count, 1, "the same pin twice")
            XCTAssertEqual(messages(policy("app", format, rules: [rule([2, 9])])).filter { $0.contains("no backup") }, [], "\(format)")
        }
        let note = ClientSourceNote(origin: "Info.plist: api.example.com", message: "TrustKit requires at least two hashes")
        let trustKit = messages(policy("ios", rules: [rule([2])], notes: [note])).filter {
            $0.contains("backup") || $0.contains("two hashes")
        }
        XCTAssertEqual(trustKit.count, 1, "the importer's own note, not twice: \(trustKit)")
    }

    func testSkippedNamesAreSaidNotToBeChecked() {
        var client = policy("android", .nsc, rules: [rule([2, 9]), rule([2, 9], domain: "internal.example.com")])
        client.skip = ["internal.example.com"]
        XCTAssertTrue(
            messages(client).contains("info: android: internal.example.com: not probed (skip:): its pins are not checked"),
            "\(messages(client))")
    }

    func testNothingMatching() {
        let found = messages(policy("ios", rules: [rule([8, 9])]))
        XCTAssertEqual(found.count, 1, "\(found)")
        XCTAssertTrue(found[0].contains("no pin matches the live chain: this release refuses the host"))
    }

    func testAHealthySetSaysNothing() {
        XCTAssertEqual(messages(policy("ios", rules: [rule([2, 9])])).filter { $0.hasPrefix("warning") }, [])
    }

    func testReportOnlyIsInfo() {
        XCTAssertTrue(
            messages(policy("ios", rules: [rule([2, 9], enforced: false)])).contains {
                $0.contains("info: ios: api.example.com: not enforced")
            })
    }

    func testExpirations() {
        let expired = messages(policy("android 4", .nsc, rules: [rule([2, 9], expiresInDays: -3)]))
        XCTAssertTrue(expired.contains { $0.contains("pins expired 2027-01-12: this release no longer checks them") }, "\(expired)")
        let soon = messages(policy("android 5", .nsc, rules: [rule([2, 9], expiresInDays: 10.5)]))
        XCTAssertTrue(
            soon.contains { $0.contains("pins expire 2027-01-25 (in 10 days): then this release stops checking them") }, "\(soon)")
        let far = messages(policy("android 6", .nsc, rules: [rule([2, 9], expiresInDays: 100)]))
        XCTAssertFalse(far.contains { $0.contains("expire") }, "\(far)")
    }

    func testSubdomainPatternsThatCoverNoMonitoredHost() {
        var wide = rule([2, 9], domain: "example.org")
        wide.includeSubdomains = true
        let found = messages(policy("android", .nsc, rules: [rule([2, 9]), wide, rule([2, 9], domain: "*.example.com")]))
        XCTAssertTrue(
            found.contains { $0.contains("example.org: pins cover subdomains of example.org, but none is monitored") }, "\(found)")
        XCTAssertFalse(found.contains { $0.contains("subdomains of example.com") }, "api.example.com is monitored: \(found)")
    }

    func testTheSourcesOwnNotesLeadWithTheirOrigin() {
        let note = ClientSourceNote(origin: "pins.json: fingerprints[1] (api.example.com)", message: "bad signature: entry ignored")
        let found = messages(policy("web", .dynamicList, rules: [], notes: [note]))
        XCTAssertEqual(found, ["warning: web: pins.json: fingerprints[1] (api.example.com): bad signature: entry ignored"])
    }

    func testASignedListAboutToExpireAsksForANewOne() {
        let entry = ClientPinRule(
            domain: "api.example.com", pins: [Pin(kind: .cert, digest: Fixtures.digest(201), text: "cert:c9")],
            expiration: now.addingTimeInterval(5 * Fixtures.day), origin: "pins.json: fingerprints[0]")
        let found = messages(policy("web", .dynamicList, rules: [entry]))
        XCTAssertTrue(found.contains { $0.contains("the signed list expires 2027-01-20: publish a new one") }, "\(found)")
        XCTAssertFalse(found.contains { $0.contains("only the leaf") }, "a signed list pins leaves on purpose: \(found)")
    }

    func testFindingsFromCertificatesAreSanitised() {
        let note = ClientSourceNote(origin: "evil\u{1B}]52;c;AAAA\u{07}.json", message: "x")
        let found = messages(policy("web", .dynamicList, rules: [], notes: [note]))
        XCTAssertFalse(found.joined().unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, "\(found)")
    }
}
