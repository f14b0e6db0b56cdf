import Foundation
import PinwatchCT
import PinwatchCore
import PinwatchLocalWorld
import PinwatchProbe
import XCTest

/// Certificates logged for a watched name, judged before any server sends
/// them: each release's pins against the client path of the logged chain.
final class CTChainJudgeTests: XCTestCase {
    private let now = Date()

    /// A release pinned to one intermediate of a pool: a certificate (or a
    /// precertificate) logged under the sibling breaks it; one under the
    /// pinned intermediate survives; a name nobody watches is not kept.
    func testASiblingIntermediateBreaksTheReleasePinnedToTheOther() throws {
        let fixture = try LocalCTFixture()
        let sibling = try fixture.root.issueIntermediate(commonName: "CT Test Issuing CA 2")
        var config = Config(hosts: [HostConfig(host: "api.example.test")])
        config.clients = [release("android 5.2", domain: "api.example.test", pinning: fixture.intermediate.certificate)]
        try fixture.logCertificate(["api.example.test"], under: sibling)
        try fixture.logPrecertificate(["api.example.test"], under: sibling)
        try fixture.logCertificate(["api.example.test"])
        try fixture.logPrecertificate(["api.example.test"])
        try fixture.logCertificate(["elsewhere.test"], under: sibling)
        try fixture.log.publish()

        let watched = CTWatchedNames(config: config)
        let entries = try fixture.follower().advance(keeping: watched.matches).entries
        XCTAssertEqual(entries.map(\.index), [0, 1, 2, 3])
        let verdicts = try entries.map { entry in
            CTChainJudge.judge(
                served: try XCTUnwrap(entry.chainFacts), name: "api.example.test", clients: config.clients,
                store: store(fixture), now: now)
        }
        XCTAssertEqual(verdicts.map(\.breaks), [["android 5.2"], ["android 5.2"], [], []])
        XCTAssertEqual(verdicts.map(\.survives), [[], [], ["android 5.2"], ["android 5.2"]])
    }

    /// A leaf pin survives a logged certificate that reuses the current
    /// key, and breaks on one with a new key.
    func testALeafPinSurvivesOnlyAReusedKey() throws {
        let fixture = try LocalCTFixture()
        let current = try fixture.intermediate.issueLeaf(commonName: "api.example.test", dnsNames: ["api.example.test"])
        let clients = [release("ios 3.1", domain: "api.example.test", pinning: current.certificate)]
        try fixture.logCertificate(["api.example.test"], key: current.key)
        try fixture.logPrecertificate(["api.example.test"])
        try fixture.log.publish()

        let entries = try fixture.follower().advance().entries
        let verdicts = try entries.map { entry in
            CTChainJudge.judge(
                served: try XCTUnwrap(entry.chainFacts), name: "api.example.test", clients: clients, store: store(fixture),
                now: now)
        }
        XCTAssertEqual(verdicts, [CTLoggedVerdict(survives: ["ios 3.1"]), CTLoggedVerdict(breaks: ["ios 3.1"])])
    }

    /// A chain whose root the release's store lacks breaks it whatever it
    /// pins; a release whose rules have expired, or that pins other
    /// names, is not judged.
    func testAnUnanchoredChainBreaksAndExpiredOrOtherRulesAreNotJudged() throws {
        let fixture = try LocalCTFixture()
        try fixture.logCertificate(["api.example.test"])
        try fixture.log.publish()
        let entry = try XCTUnwrap(try fixture.follower().advance().entries.first)
        var foreignStore = release("android 6.0", domain: "api.example.test", pinning: fixture.intermediate.certificate)
        foreignStore.trustStore = TrustStore(name: "android-6", anchors: [])
        var expired = release("android 4.0", domain: "api.example.test", pinning: fixture.root.certificate)
        expired.pins.rules[0].expiration = now.addingTimeInterval(-86_400)
        let other = release("android 5.0", domain: "other.example.test", pinning: fixture.root.certificate)

        let verdict = CTChainJudge.judge(
            served: try XCTUnwrap(entry.chainFacts), name: "api.example.test", clients: [foreignStore, expired, other],
            store: store(fixture), now: now)
        XCTAssertEqual(verdict, CTLoggedVerdict(breaks: ["android 6.0"]))
    }

    func testTheWatchListHoldsHostsSNIAndThePinnedPatterns() {
        var config = Config(hosts: [HostConfig(host: "10.0.0.7", serverName: "edge.example.test"), HostConfig(host: "a.test")])
        config.clients = [
            release("okhttp", domain: "**.cdn.test", pinning: nil),
            release("nsc", domain: "b.test", includeSubdomains: true, pinning: nil),
            release("nsc exact", domain: "c.test", pinning: nil),
        ]
        let watched = CTWatchedNames(config: config)
        for name in ["edge.example.test", "a.test", "cdn.test", "x.y.cdn.test", "b.test", "deep.b.test", "c.test", "*.b.test"] {
            XCTAssertTrue(watched.matches(name), name)
        }
        for name in ["sub.a.test", "sub.c.test", "example.test", "notcdn.test", "xb.test"] {
            XCTAssertFalse(watched.matches(name), name)
        }
    }

    private func release(
        _ name: String, domain: String, includeSubdomains: Bool = false, pinning certificate: X509Certificate?
    ) -> ClientPolicy {
        let pins = certificate.map { [Pin(kind: .spki, digest: $0.facts.spkiSHA256, text: PinText.sha256($0.facts.spkiSHA256))] } ?? []
        let rule = ClientPinRule(domain: domain, includeSubdomains: includeSubdomains, pins: pins, origin: "\(name).xml:1")
        return ClientPolicy(name: name, pins: ImportedPins(file: "\(name).xml", format: .nsc, rules: [rule]))
    }

    private func store(_ fixture: LocalCTFixture) -> TrustStore {
        TrustStore(name: "the test store", anchors: [fixture.root.certificate.facts])
    }
}
