import Foundation
import XCTest

@testable import PinwatchCore

/// `trust_store:` on a client release: its verdicts (today's and the next
/// chains') come from the path its own store builds from what the server
/// sent, as on a device whose store differs from the host's.
final class ClientTrustStoreTests: XCTestCase {
    private typealias C = CatalogueFixtures

    private func release(pins: [Pin], store: TrustStore?) -> ClientPolicy {
        let rule = ClientPinRule(domain: "api.example.com", pins: pins, origin: "app.xml:3")
        var policy = ClientPolicy(name: "android 13", pins: ImportedPins(file: "app.xml", format: .nsc, rules: [rule]))
        policy.trustStore = store
        return policy
    }

    private func judged(_ policy: ClientPolicy) throws -> HostReport {
        let catalogue = CatalogueFixtures.Knowledge.knownPool.catalogue
        let host = HostConfig(host: "api.example.com", pins: PinSet(ca: [Fixtures.spkiPin(30)]))
        let plain = Verdict.report(
            for: host, result: Fixtures.result(chain: C.rsaChain), now: Fixtures.now, warnDays: 21, criticalDays: 7, catalogue: catalogue)
        let combined = ClientVerdicts.apply(
            to: plain, clients: [policy], now: Fixtures.now, warnDays: 21, criticalDays: 7, catalogue: catalogue)
        return try XCTUnwrap(combined.clients.first?.report)
    }

    func testAReleaseWhoseStoreLacksTheRootRefusesTheChainTheHostsStoreTrusts() throws {
        let withoutX1 = try judged(
            release(pins: [Fixtures.spkiPin(30)], store: TrustStore(name: "android 13's store", anchors: [C.x2.facts])))
        XCTAssertEqual(withoutX1.status, .blocked)
        XCTAssertTrue(withoutX1.alerts.contains(.untrusted))
        XCTAssertEqual(withoutX1.result.trustError, "android 13's store holds no root on the path the server's chain gives")
        XCTAssertEqual(withoutX1.nextChains?.recommended, [], "nothing to pin until its store trusts the chain")

        let withX1 = try judged(release(pins: [Fixtures.spkiPin(30)], store: TrustStore(name: "android 13's store", anchors: [C.x1.facts])))
        XCTAssertEqual(withX1.status, .ok)
        XCTAssertEqual(withX1.levels.map { $0.certificate.facts.subject }, C.rsaChain.map(\.facts.subject))
    }

    func testTrustStoreIsReadThroughTheInjectedReaderAndItsFailureNamesTheFile() throws {
        let reader: ClientSourceReader = { source throws(ClientSourceError) in
            ImportedPins(
                file: source.locationText, format: source.format,
                rules: [ClientPinRule(domain: "api.test", pins: [Fixtures.spkiPin(1)], origin: "\(source.locationText):1")])
        }
        let stores: ConfigLoader.TrustStoreReader = { path in
            guard path.hasSuffix("android-13") else { throw ConfigError(problems: []) }
            return [C.x1.facts]
        }
        let loader = ConfigLoader(certificateDigests: { _ in [] }, clientReader: reader, trustStoreReader: stores)
        let yaml = """
            hosts: []
            clients:
              - {name: android 13, nsc: app.xml, trust_store: stores/android-13}
            """
        let config = try loader.load(yaml: yaml, path: "/etc/pinwatch/pinwatch.yaml")
        XCTAssertEqual(config.clients.first?.trustStore?.anchors, [C.x1.facts])
        XCTAssertEqual(config.clients.first?.trustStore?.name, "the store of android 13")

        let broken = yaml.replacingOccurrences(of: "android-13", with: "missing")
        XCTAssertThrowsError(try loader.load(yaml: broken, path: "/etc/pinwatch/pinwatch.yaml")) { error in
            let text = (error as? ConfigError)?.problems.map(\.description).joined() ?? "\(error)"
            XCTAssertTrue(text.contains("/etc/pinwatch/stores/missing"), text)
            XCTAssertTrue(text.contains("trust_store:"), text)
        }
    }
}
