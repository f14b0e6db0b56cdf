import Foundation
import PinwatchCore
import PinwatchLocalWorld
import PinwatchProbe
import PinwatchTestSupport
import XCTest

/// A signed pin list fetched from a URL: a real HTTPS server (`openssl
/// s_server -WWW`, started here on 127.0.0.1 with a certificate of the
/// fleet's PKI), directly and through a CONNECT proxy, with the same trust
/// as the probes.
final class ClientPinListDownloadTests: LocalFleetTestCase {
    private var api: LocalFleet.Host!
    private var listServer: BackgroundProcess!
    private var listPort = 0
    private var listKey = ""

    override func setUpWithError() throws {
        try super.setUpWithError()
        let served = try fleet.serveLeaf("api.test")
        api = LocalFleet.Host(name: "api.test", port: served.server.port, leafCertificate: served.leaf.certificate)
        fleet.add(api)

        let signer = try PrivateKey.ecdsa(.p256)
        listKey = Data(signer.uncompressedPoint).base64EncodedString()
        let later = Int(Date().timeIntervalSince1970) + 90 * 86_400
        try fleet.write(
            try SignedPinListFixture.json(
                [.init(name: "api.test", fingerprint: served.leaf.certificate.facts.certSHA256, expires: later)], signedBy: signer),
            to: "pins.json")

        let leaf = try fleet.issuing.issueLeaf(commonName: "localhost", dnsNames: ["localhost"])
        try fleet.write(leaf.certificate.pem, to: "list-cert.pem")
        try fleet.write(try leaf.key.pem, to: "list-key.pem")
        try fleet.write(fleet.issuing.certificate.pem, to: "list-chain.pem")
        listPort = try LocalPorts.closedPort()
        let command =
            "cd \(TmuxSession.quote(fleet.directory.path)) && exec openssl s_server -quiet -WWW -accept 127.0.0.1:\(listPort)"
            + " -cert list-cert.pem -key list-key.pem -cert_chain list-chain.pem"
        listServer = try BackgroundProcess("/bin/bash", ["-c", command], directory: fleet.directory, name: "s_server")
        try waitUntil(timeout: 10, "openssl s_server listens on \(listPort)") {
            guard let probe = try? LoopbackHTTP.Connection(port: listPort, timeout: 1) else { return false }
            probe.close()
            return true
        }
    }

    override func tearDownWithError() throws {
        listServer?.stop()
        try super.tearDownWithError()
    }

    private func config(url: String, extra: [String] = [], name: String = "pinwatch.yaml") throws -> URL {
        try fleet.writeConfig(
            settings: extra + ["clients:", "  - name: web", "    dynamic_list: {url: \"\(url)\", public_key: \"\(listKey)\"}"], name: name)
    }

    func testAListFromAnHTTPSURLDecidesTheRelease() throws {
        let direct = try config(url: "https://localhost:\(listPort)/pins.json")
        let outcome = try fleet.run(["check", "--config", direct.path, "--client", "web"])
        XCTAssertEqual(outcome.status, 0, "\(outcome.stdout)\(outcome.stderr)")
        XCTAssertTrue(outcome.stdout.hasPrefix("PINWATCH OK"), outcome.stdout)
    }

    func testTheListGoesThroughTheConfiguredProxy() throws {
        let proxy = try fleet.keep(ConnectProxyServer())
        let proxied = try config(url: "https://localhost:\(listPort)/pins.json", extra: ["proxy: http://127.0.0.1:\(proxy.port)"])
        let outcome = try fleet.run(["validate", "--config", proxied.path])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertTrue(proxy.connectTargets.contains("localhost:\(listPort)"), "\(proxy.connectTargets)")
    }

    func testDownloadFailuresAreConfigurationErrorsNamingTheURL() throws {
        let missing = try config(url: "https://localhost:\(listPort)/missing.json")
        let notFound = try fleet.run(["validate", "--config", missing.path])
        XCTAssertEqual(notFound.status, 2)
        // s_server -WWW answers 200 with an error text: the list's own check catches it.
        XCTAssertTrue(notFound.stderr.contains("https://localhost:\(listPort)/missing.json: malformed JSON"), notFound.stderr)

        // A trust store without the fleet's roots: the list server is refused like any host.
        let stranger = try SelfSignedLeaf.make(commonName: "stranger.test", dnsNames: ["stranger.test"])
        try fleet.write(stranger.certificate.pem, to: "stranger.pem")
        try fleet.write(
            "trust: stranger.pem\nhosts: []\nclients:\n  - name: web\n    dynamic_list: {url: \"https://localhost:\(listPort)/pins.json\", public_key: \"\(listKey)\"}\n",
            to: "untrusted.yaml")
        let untrusted = try fleet.run(["validate", "--config", fleet.directory.appendingPathComponent("untrusted.yaml").path])
        XCTAssertEqual(untrusted.status, 2)
        XCTAssertTrue(untrusted.stderr.contains("cannot download the list: the list server's chain is not trusted"), untrusted.stderr)

        let closed = try LocalPorts.closedPort()
        let refused = try config(url: "https://127.0.0.1:\(closed)/pins.json", name: "refused.yaml")
        let outcome = try fleet.run(["validate", "--config", refused.path])
        XCTAssertEqual(outcome.status, 2)
        XCTAssertTrue(outcome.stderr.contains("cannot download the list: Connection refused"), outcome.stderr)
    }
}
