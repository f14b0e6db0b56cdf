import Foundation
import PinwatchCore
import PinwatchLocalWorld
import PinwatchProbe
import PinwatchTestSupport
import XCTest

/// `ProbeTarget.keyTypeOffer` through the real engine against one nginx
/// holding an ECDSA and an RSA certificate under different intermediates.
final class KeyTypeOfferTests: XCTestCase {
    private let engine = ProbeEngine(concurrency: 4)

    private func requireNginx() throws {
        try TestEnvironment.require(
            NginxTLSServer.isInstalled, "nginx is not installed (apt-get install nginx-light)", skip: { XCTSkip($0) })
    }

    private func target(_ server: NginxTLSServer, trust: TrustSource, offer: KeyTypeOffer?) -> ProbeTarget {
        ProbeTarget(
            host: "api.test", port: server.port, serverName: "api.test", connectAddress: server.host, trust: trust,
            keyTypeOffer: offer)
    }

    private func issuerSubject(_ result: ProbeResult) -> String? {
        result.chain.count > 1 ? result.chain[1].facts.subject : nil
    }

    func testEachOfferGetsItsOwnChainOverTLS13AndTLS12() throws {
        try requireNginx()
        let pki = try DualKeyTypePKI()
        for protocols in ["TLSv1.3", "TLSv1.2"] {
            let server = try NginxTLSServer(identities: [pki.ecdsa, pki.rsa], protocols: protocols)
            let results = engine.run([
                target(server, trust: pki.trust, offer: .ecdsa), target(server, trust: pki.trust, offer: .rsa),
            ])
            let (ecdsa, rsa) = (results[0], results[1])

            XCTAssertNil(ecdsa.failure, "\(protocols): \(ecdsa.failure?.message ?? "")")
            XCTAssertTrue(ecdsa.trusted, "\(protocols): \(ecdsa.trustError ?? "")")
            XCTAssertEqual(ecdsa.chain.first?.facts.keyDescription, "ECDSA P-256", protocols)
            XCTAssertEqual(ecdsa.chain.first?.facts.certSHA256, pki.ecdsa.chain[0].facts.certSHA256, protocols)
            XCTAssertEqual(issuerSubject(ecdsa), "CN=Pinwatch Dual E1,O=Pinwatch Tests", protocols)

            XCTAssertNil(rsa.failure, "\(protocols): \(rsa.failure?.message ?? "")")
            XCTAssertTrue(rsa.trusted, "\(protocols): \(rsa.trustError ?? "")")
            XCTAssertEqual(rsa.chain.first?.facts.keyDescription, "RSA 2048", protocols)
            XCTAssertEqual(rsa.chain.first?.facts.certSHA256, pki.rsa.chain[0].facts.certSHA256, protocols)
            XCTAssertEqual(issuerSubject(rsa), "CN=Pinwatch Dual R1,O=Pinwatch Tests", protocols)
            server.stop()
        }
    }

    func testNoOfferGetsTheChainADefaultClientGets() throws {
        try requireNginx()
        let pki = try DualKeyTypePKI()
        let server = try NginxTLSServer(identities: [pki.rsa, pki.ecdsa])
        let result = engine.run([target(server, trust: pki.trust, offer: nil)])[0]
        XCTAssertNil(result.failure, result.failure?.message ?? "")

        let fingerprint = try ShellCommand.run(
            "openssl s_client -connect 127.0.0.1:\(server.port) -servername api.test </dev/null 2>/dev/null"
                + " | openssl x509 -noout -fingerprint -sha256")
        let defaultClientLeaf = fingerprint.split(separator: "=").last.map { $0.replacingOccurrences(of: ":", with: "").lowercased() }
        XCTAssertEqual(result.chain.first.map { $0.facts.certSHA256.map { String(format: "%02x", $0) }.joined() }, defaultClientLeaf)
        XCTAssertEqual(result.chain.first?.facts.keyDescription, "ECDSA P-256", "a default client offers ECDSA first")
    }

    func testServerWithoutAnRSACertificateRefusesTheRSAOfferInPlainWords() throws {
        try requireNginx()
        let pki = try DualKeyTypePKI()
        for protocols in ["TLSv1.3", "TLSv1.2"] {
            let server = try NginxTLSServer(identities: [pki.ecdsa], protocols: protocols)
            let results = engine.run([
                target(server, trust: pki.trust, offer: .rsa), target(server, trust: pki.trust, offer: .ecdsa),
            ])
            XCTAssertEqual(results[0].failure?.kind, .tls, protocols)
            let message = results[0].failure?.message ?? ""
            XCTAssertEqual(
                message,
                "the server refused a handshake offering only RSA signatures: it seems to hold no RSA certificate"
                    + " (sslv3 alert handshake failure)", protocols)
            XCTAssertTrue(results[0].chain.isEmpty)
            XCTAssertNil(results[1].failure, "\(protocols): the ECDSA offer still succeeds")
            server.stop()
        }
    }
}
