import Foundation
import XCTest

@testable import PinwatchCore

/// What each release sees, from chains built of small integers: leaf key 1,
/// intermediate key 2, root key 3 (Fixtures); cert digests are key + 200.
final class ClientVerdictTests: XCTestCase {
    private let now = Fixtures.now

    private func client(
        _ name: String, _ format: ClientFormat = .nsc, domain: String = "api.example.com", pins: [UInt8], expiresInDays: Double? = nil,
        includeSubdomains: Bool = false
    ) -> ClientPolicy {
        let rule = ClientPinRule(
            domain: domain, includeSubdomains: includeSubdomains, pins: pins.map(Fixtures.spkiPin),
            expiration: expiresInDays.map { now.addingTimeInterval($0 * Fixtures.day) }, origin: "\(name).xml:3")
        return ClientPolicy(name: name, pins: ImportedPins(file: "\(name).xml", format: format, rules: [rule]))
    }

    private func apply(_ clients: [ClientPolicy], host: HostConfig = HostConfig(host: "api.example.com"), chain: [ChainCertificate]? = nil)
        -> HostReport
    {
        let report = Fixtures.report(host, Fixtures.result(chain: chain ?? Fixtures.chain()))
        return ClientVerdicts.apply(to: report, clients: clients, now: now, warnDays: 21, criticalDays: 7)
    }

    func testTiersAreInferredFromTheLevelEachPinMatches() {
        let report = apply([client("android 5.2", pins: [3, 9]), client("ios 7.0", .trustkit, pins: [1, 9])])
        let byName = Dictionary(uniqueKeysWithValues: report.clients.map { ($0.client, $0) })
        XCTAssertEqual(byName["android 5.2"]?.report.status, .ok)
        XCTAssertEqual(byName["android 5.2"]?.report.matchedTiers, [.ca], "a root pin is a CA pin")
        XCTAssertEqual(byName["ios 7.0"]?.report.status, .leafOnly)
        XCTAssertEqual(byName["ios 7.0"]?.report.matchedTiers, [.leaf], "a leaf pin is a leaf pin")
        XCTAssertEqual(byName["ios 7.0"]?.summary, "ios 7.0: leaf_only on api.example.com — breaks at next renewal")
        XCTAssertEqual(report.status, .leafOnly, "the worst release decides a host with no pins of its own")
        XCTAssertEqual(report.decidedBy, "ios 7.0")
        XCTAssertTrue(report.reason.hasPrefix("ios 7.0: "), report.reason)
    }

    func testAReleaseThatBreaksOverridesTheHostsOwnOkButNeverImprovesIt() {
        let ownCA = HostConfig(host: "api.example.com", pins: PinSet(ca: [Fixtures.spkiPin(2)]))
        let worse = apply([client("ios 7.0", pins: [1])], host: ownCA)
        XCTAssertEqual(worse.status, .leafOnly, "the table must not say ok while a shipped release breaks")

        let ownLeafOnly = HostConfig(host: "api.example.com", pins: PinSet(leaf: [Fixtures.spkiPin(1)]))
        let better = apply([client("android", pins: [2])], host: ownLeafOnly)
        XCTAssertEqual(better.status, .leafOnly, "a client that is fine does not hide the configured pins' verdict")
        XCTAssertNil(better.decidedBy)
        XCTAssertEqual(better.clients.map(\.report.status), [.ok])
    }

    /// A leaf's expiry is the host's, whoever pins it: the host's reason
    /// does not say "android legacy: the leaf certificate expires in 14
    /// days", as if that release's pins were the cause; what a release's
    /// own pins decide still names it.
    func testAReleaseIsNotNamedBeforeTheHostsOwnFacts() {
        let report = apply([client("android legacy", pins: [3])], chain: Fixtures.chain(leafDaysLeft: 14.5))
        XCTAssertEqual(report.headline, .expiring, "the host still warns of its leaf")
        XCTAssertEqual(report.severity, .warning)
        XCTAssertEqual(report.reason, "the leaf certificate expires in 14 days")

        let critical = apply([client("android legacy", pins: [1])], chain: Fixtures.chain(leafDaysLeft: 3.5))
        XCTAssertEqual(critical.severity, .critical)
        XCTAssertTrue(critical.reason.hasPrefix("the leaf certificate expires in 3 days"), critical.reason)

        let pins = apply([client("ios 6", pins: [8, 9])], chain: Fixtures.chain(leafDaysLeft: 14.5))
        XCTAssertTrue(pins.reason.hasPrefix("ios 6: pinned clients refuse this host now"), "its own finding names it: \(pins.reason)")
        let leafOnly = apply([client("ios 7.0", pins: [1])])
        XCTAssertTrue(leafOnly.reason.hasPrefix("ios 7.0: only the leaf pin still matches"), leafOnly.reason)
    }

    func testNoMatchingPinIsBlockedForThatRelease() {
        let report = apply([client("ios 6", pins: [8, 9])])
        XCTAssertEqual(report.status, .blocked)
        XCTAssertEqual(report.severity, .critical)
    }

    func testExpiredPinsAreNoLongerCheckedAndExpiringOnesWarn() {
        let expired = apply([client("android 4", pins: [8], expiresInDays: -1)])
        XCTAssertEqual(expired.clients.first?.report.status, .unpinned, "Android stops pinning after the expiration")
        XCTAssertTrue(expired.clients.first?.report.alerts.contains(.pinsExpired) == true)
        XCTAssertFalse(expired.clients.first?.report.alerts.contains(.noMatch) == true, "unmatched pins no longer matter")

        let expiring = apply([client("android 5", pins: [2], expiresInDays: 10)])
        XCTAssertEqual(expiring.clients.first?.report.status, .ok)
        XCTAssertTrue(expiring.clients.first?.report.alerts.contains(.pinsExpiring) == true)
        XCTAssertEqual(expiring.clients.first?.pinsExpire, now.addingTimeInterval(10 * Fixtures.day))

        let later = apply([client("android 6", pins: [2], expiresInDays: 200)])
        XCTAssertFalse(later.clients.first?.report.alerts.contains(.pinsExpiring) == true)
    }

    func testASignedListPinsLeavesOnPurpose() {
        func list(_ entries: [(digest: UInt8, expiresInDays: Double)]) -> ClientPolicy {
            let rules = entries.map { entry in
                ClientPinRule(
                    domain: "api.example.com",
                    pins: [Pin(kind: .cert, digest: Fixtures.digest(entry.digest), text: "cert:x\(entry.digest)")],
                    expiration: now.addingTimeInterval(entry.expiresInDays * Fixtures.day), origin: "pins.json: fingerprints[0]")
            }
            return ClientPolicy(name: "web", pins: ImportedPins(file: "pins.json", format: .dynamicList, rules: rules))
        }
        let current = apply([list([(201, 60)])])
        XCTAssertEqual(current.clients.first?.report.status, .ok, "a leaf fingerprint is the normal case for a signed list")
        XCTAssertEqual(current.status, .ok)
        XCTAssertEqual(
            current.clients.first?.report.reason,
            "the leaf certificate matches a signed-list pin: publish the next leaf's before renewing",
            "a leaf match, not a CA-tier one")

        let stale = apply([list([(201, -1), (250, 60)])])
        XCTAssertEqual(stale.clients.first?.report.status, .blocked, "the live leaf's entry expired, the other is for another cert")

        let allExpired = apply([list([(201, -1)])])
        XCTAssertEqual(allExpired.clients.first?.report.status, .blocked, "nothing left to accept")

        let badSignature = ClientPolicy(
            name: "web",
            pins: ImportedPins(
                file: "pins.json", format: .dynamicList,
                rules: [ClientPinRule(domain: "api.example.com", pins: [], origin: "pins.json: fingerprints[0]")]))
        XCTAssertEqual(apply([badSignature]).status, .blocked, "entries that fail their signature accept nothing")
    }

    /// Cert digests are key + 200: the leaf 201, the intermediate 202, the root 203.
    func testASignedListsFingerprintCountsAtItsDepthOnly() {
        func list(_ entries: [(digest: UInt8, depth: Int)]) -> ClientPolicy {
            let rules = entries.map { entry in
                ClientPinRule(
                    domain: "api.example.com",
                    pins: [Pin(kind: .cert, digest: Fixtures.digest(entry.digest), text: "cert:x\(entry.digest)")],
                    expiration: now.addingTimeInterval(60 * Fixtures.day), origin: "pins.json: fingerprints[0]", depth: entry.depth)
            }
            return ClientPolicy(name: "web", pins: ImportedPins(file: "pins.json", format: .dynamicList, rules: rules))
        }
        let intermediate = apply([list([(202, 1)])]).clients.first?.report
        XCTAssertEqual(intermediate?.status, .ok, "the intermediate at depth 1")
        XCTAssertEqual(intermediate?.matchedTiers, [.ca])
        XCTAssertEqual(apply([list([(203, 2)])]).clients.first?.report.status, .ok, "the root from the trust store at depth 2")
        XCTAssertEqual(
            apply([list([(202, 2)])]).clients.first?.report.status, .blocked, "the intermediate's fingerprint at the root's depth")
        XCTAssertEqual(apply([list([(201, 1)])]).clients.first?.report.status, .blocked, "the leaf's fingerprint at depth 1")
        XCTAssertEqual(apply([list([(203, 5)])]).clients.first?.report.status, .blocked, "a depth past the chain")
        XCTAssertEqual(apply([list([(202, 2), (201, 0)])]).clients.first?.report.status, .ok, "any one entry at its depth passes")
    }

    func testSHA1PinsMatchTheSPKIsSHA1() {
        var chain = Fixtures.chain()
        chain[1].facts.spkiSHA1 = [UInt8](repeating: 7, count: 20)
        let rule = ClientPinRule(
            domain: "api.example.com", pins: [Pin(kind: .spkiSHA1, digest: [UInt8](repeating: 7, count: 20), text: "sha1/x")],
            origin: "Pins.kt:1")
        let report = apply(
            [ClientPolicy(name: "okhttp 2", pins: ImportedPins(file: "Pins.kt", format: .okhttp, rules: [rule]))], chain: chain)
        XCTAssertEqual(report.clients.first?.report.status, .ok)
    }

    func testAndroidTrustKitAndHPKPUseTheMostSpecificDomain() {
        let rules = [
            ClientPinRule(domain: "example.com", includeSubdomains: true, pins: [Fixtures.spkiPin(3)], origin: "a:1"),
            ClientPinRule(domain: "eu.example.com", includeSubdomains: true, pins: [Fixtures.spkiPin(8)], origin: "a:2"),
            ClientPinRule(domain: "api.example.com", pins: [Fixtures.spkiPin(1)], origin: "a:3"),
        ]
        for format in [ClientFormat.nsc, .trustkit, .hpkp] {
            let policy = ClientPolicy(name: "x", pins: ImportedPins(file: "a", format: format, rules: rules))
            XCTAssertEqual(policy.rules(for: "API.example.com").map(\.origin), ["a:3"], "\(format)")
            XCTAssertEqual(policy.rules(for: "a.eu.example.com").map(\.origin), ["a:2"], "\(format): the longer parent")
            XCTAssertEqual(policy.rules(for: "a.b.example.com").map(\.origin), ["a:1"], "\(format)")
            XCTAssertEqual(policy.rules(for: "example.org"), [], "\(format)")
            XCTAssertEqual(policy.concreteHosts, ["api.example.com"], "subdomain bases are patterns, not hosts")
        }
    }

    /// OkHttp's CertificatePinner documents "If multiple patterns match a
    /// hostname, any match is sufficient": pin A on `*.publicobject.com`
    /// and pin B on `api.publicobject.com` both pass `api.publicobject.com`.
    func testOkHttpCollectsThePinsOfEveryMatchingPattern() {
        let rules = [
            ClientPinRule(domain: "**.example.com", pins: [Fixtures.spkiPin(7)], origin: "a:1"),
            ClientPinRule(domain: "*.example.com", pins: [Fixtures.spkiPin(2)], origin: "a:2"),
            ClientPinRule(domain: "api.example.com", pins: [Fixtures.spkiPin(8)], origin: "a:3"),
        ]
        let policy = ClientPolicy(name: "android 3", pins: ImportedPins(file: "a", format: .okhttp, rules: rules))
        XCTAssertEqual(policy.rules(for: "API.example.com").map(\.origin), ["a:1", "a:2", "a:3"])
        XCTAssertEqual(policy.rules(for: "www.example.com").map(\.origin), ["a:1", "a:2"])
        XCTAssertEqual(policy.rules(for: "a.b.example.com").map(\.origin), ["a:1"], "* is one label, ** any depth")
        XCTAssertEqual(policy.rules(for: "example.com").map(\.origin), ["a:1"], "** includes no prefix at all")
        XCTAssertEqual(policy.rules(for: "example.org"), [])

        let report = apply([policy])
        let verdict = report.clients.first
        XCTAssertEqual(verdict?.report.status, .ok, "the intermediate pinned by *.example.com passes, as in OkHttp")
        XCTAssertEqual(verdict?.report.matchedTiers, [.ca])
        XCTAssertEqual(report.status, .ok)
    }

    func testAHostNoClientPinsIsLeftAlone() {
        let report = apply([client("android", domain: "other.example.com", pins: [1])])
        XCTAssertEqual(report.clients, [])
        XCTAssertEqual(report.status, .unpinned)
    }

    func testAnErrorStaysAnError() {
        let host = HostConfig(host: "api.example.com")
        let failed = Fixtures.report(host, ProbeResult(failure: ProbeFailure(kind: .refused, message: "refused"), finishedAt: now))
        let report = ClientVerdicts.apply(to: failed, clients: [client("ios", pins: [1])], now: now, warnDays: 21, criticalDays: 7)
        XCTAssertEqual(report.status, .error)
        XCTAssertEqual(report.clients.first?.report.status, .error)
    }
}
