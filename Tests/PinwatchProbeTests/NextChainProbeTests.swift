import Foundation
import PinwatchCore
import PinwatchLocalWorld
import PinwatchMonitor
import PinwatchProbe
import PinwatchTestSupport
import XCTest

/// Next chains (DESIGN §10), end to end on local TLS servers: a user catalogue family with
/// a five-intermediate pool, real chains served on 127.0.0.1, and the
/// poller's verdict on the pins.
final class NextChainProbeTests: XCTestCase {
    private var servers: [LocalTLSServer] = []

    override func tearDown() {
        servers.forEach { $0.stop() }
        servers.removeAll()
    }

    private func pin(_ certificate: X509Certificate) -> Pin {
        let digest = certificate.facts.spkiSHA256
        return Pin(kind: .spki, digest: digest, text: PinText.sha256(digest))
    }

    /// A leaf under `issuer`, served on 127.0.0.1, and the host pinned to `pins`.
    private func host(
        _ name: String, under issuer: CertificateAuthority, pins: [Pin], provider: String? = nil
    ) throws -> HostConfig {
        let leaf = try issuer.issueLeaf(commonName: name, dnsNames: [name])
        let server = try LocalTLSServer(identity: Identity(leaf: leaf, intermediates: [issuer.certificate]))
        servers.append(server)
        var host = HostConfig(host: name, port: server.port, connectAddress: "127.0.0.1", pins: PinSet(ca: pins))
        host.provider = provider
        return host
    }

    private func poll(_ hosts: [HostConfig], trust: [CertificateAuthority], catalogue: Catalogue) -> [HostReport] {
        let pem = trust.map(\.certificate.pem).joined()
        var config = Config(
            timeout: 5,
            hosts: hosts.map { host in
                var trusted = host
                trusted.trust = .pem(pem)
                return trusted
            })
        config.catalogue = catalogue
        return HostPoller(config: config, environment: [:]).runCycle()
    }

    func testAPoolPinnedHostIsWarnedAndARootPinnedOneIsNot() throws {
        let pool = try LocalCAPool(
            rootName: "Pool Test Root X1", intermediateNames: ["PR10", "PR11", "PR12", "PR13", "PR14"], organization: "Pool Test CA")
        let family = pool.catalogueFamily(name: "pooltest", displayName: "Pool Test CA")
        let intermediatePinned = try host("pool.test", under: pool.intermediates[0], pins: [pin(pool.intermediates[0].certificate)])
        let rootPinned = try host("root.test", under: pool.intermediates[2], pins: [pin(pool.root.certificate)])
        let reports = poll([intermediatePinned, rootPinned], trust: [pool.root], catalogue: Catalogue(families: [family]))
        XCTAssertEqual(reports.count, 2)

        let pooled = reports[0]
        XCTAssertNil(pooled.result.failure)
        XCTAssertEqual(pooled.status, .ok)
        XCTAssertEqual(pooled.alerts, [.intermediatePool])
        XCTAssertEqual(pooled.severity, .warning)
        XCTAssertEqual(pooled.headline, .intermediatePool)
        let rootPin = PinText.sha256(pool.root.certificate.facts.spkiSHA256)
        XCTAssertEqual(pooled.nextChains?.recommended.map(\.pin), [rootPin])
        XCTAssertEqual(pooled.nextChains?.recommended.map(\.subject), ["Pool Test Root X1"])
        XCTAssertEqual(
            pooled.reason,
            "only the intermediate pin (CN=PR10) matches; Pool Test CA issues from PR10–PR14: 4 of 5 next chains break pinned clients; "
                + "add Pool Test Root X1 (\(rootPin.prefix(11))…)")
        XCTAssertEqual(pooled.nextChains?.chains(.intermediateRotation).map(\.via), ["PR11", "PR12", "PR13", "PR14"])

        let safe = reports[1]
        XCTAssertEqual(safe.status, .ok)
        XCTAssertEqual(safe.alerts, [])
        XCTAssertEqual(safe.severity, .ok)
        XCTAssertEqual(safe.nextChains?.survives(.intermediateRotation), true)
        XCTAssertEqual(safe.nextChains?.recommended, [])
    }

    func testAProviderWithTwoFamiliesAndPinsCoveringOneIsACASwitch() throws {
        let first = try LocalCAPool(rootName: "Switch Test Root A", intermediateNames: ["SA1", "SA2"], organization: "Switch A")
        let second = try LocalCAPool(rootName: "Switch Test Root B", intermediateNames: ["SB1"], organization: "Switch B")
        let catalogue = Catalogue(
            families: [first.catalogueFamily(name: "a", displayName: "CA A"), second.catalogueFamily(name: "b", displayName: "CA B")],
            providers: [CatalogueProvider(name: "cdn", displayName: "Test CDN", families: ["a", "b"], source: "test")])
        let declared = try host("cdn.test", under: first.intermediates[0], pins: [pin(first.root.certificate)], provider: "cdn")
        let undeclared = try host("plain.test", under: first.intermediates[1], pins: [pin(first.root.certificate)])
        let reports = poll([declared, undeclared], trust: [first.root, second.root], catalogue: catalogue)

        let switched = reports[0]
        XCTAssertEqual(switched.status, .ok)
        XCTAssertEqual(switched.alerts, [.caSwitch])
        XCTAssertEqual(switched.severity, .warning)
        XCTAssertEqual(switched.nextChains?.chains(.caSwitch).map(\.via), ["CA B"])
        XCTAssertEqual(switched.nextChains?.recommended.map(\.subject), ["Switch Test Root B"])
        XCTAssertTrue(
            switched.reason.hasPrefix("Test CDN may issue the next certificate from CA B, which no pin covers; add Switch Test Root B"))

        // Without provider: the CA switch is not judged, nor alerted on.
        XCTAssertEqual(reports[1].alerts, [])
        XCTAssertNil(reports[1].nextChains?.survives(.caSwitch))
    }
}
