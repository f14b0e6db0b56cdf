import Foundation
import PinwatchLocalWorld
import PinwatchTestSupport
import XCTest

/// DESIGN §11 (key_types:): one nginx holding an ECDSA and an RSA certificate under
/// different intermediates (nginx-light, installed by .ci/run). With
/// `key_types: [ecdsa, rsa]` each family is a handshake of its own, both
/// chains are judged, and the one no pin matches is named.
final class EveryKeyTypeEndToEndTests: LocalFleetTestCase {
    func testBothChainsAreReportedAndTheUnpinnedOneIsNamed() throws {
        try TestEnvironment.require(
            NginxTLSServer.isInstalled, "nginx is not installed (apt-get install nginx-light)", skip: { XCTSkip($0) })
        let pki = try DualKeyTypePKI(serverName: "dual.test")
        let server = try NginxTLSServer(identities: [pki.ecdsa, pki.rsa])
        defer { server.stop() }
        try fleet.write(pki.root.certificate.pem, to: "dual-trust.pem")
        func writeConfig(keyTypes: String) throws {
            try fleet.write(
                """
                timeout: 3s
                trust: dual-trust.pem
                \(keyTypes)
                hosts:
                  - host: dual.test
                    port: \(server.port)
                    connect: 127.0.0.1
                    pins:
                      ca: [\(LocalFleet.pin(pki.ecdsaIssuer.certificate))]

                """, to: "pinwatch.yaml")
        }

        try writeConfig(keyTypes: "key_types: [ecdsa, rsa]")
        let json = try fleet.run(["snapshot", "--format", "json", "--state", "off", "--config", "pinwatch.yaml"])
        XCTAssertEqual(json.status, 0, json.stderr)
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let host = try XCTUnwrap((document["hosts"] as? [[String: Any]])?.first)
        XCTAssertEqual(host["status"] as? String, "blocked", "\(host)")
        XCTAssertEqual(host["severity"] as? String, "critical")
        let reason = host["reason"] as? String ?? ""
        XCTAssertTrue(reason.hasPrefix("RSA clients get a chain under CN=Pinwatch Dual R1 that no pin matches; rsa: "), reason)
        XCTAssertEqual(host["agreement"] as? String, "ecdsa ok, rsa blocked")
        let keyTypes = try XCTUnwrap(host["key_types"] as? [[String: Any]])
        XCTAssertEqual(keyTypes.map { $0["key_type"] as? String }, ["ecdsa", "rsa"])
        XCTAssertEqual(keyTypes.map { $0["status"] as? String }, ["ok", "blocked"])
        let chains = keyTypes.map { $0["chain_sha256"] as? [String] ?? [] }
        XCTAssertEqual(chains[0].first, pki.ecdsa.chain[0].facts.certSHA256.map { String(format: "%02x", $0) }.joined())
        XCTAssertEqual(chains[1].first, pki.rsa.chain[0].facts.certSHA256.map { String(format: "%02x", $0) }.joined())
        XCTAssertNil(host["addresses"], "addresses only with addresses: all")
        // python3-jsonschema is installed by .ci/run: no silent skip here.
        let verdict = try SnapshotSchema.validate(try fleet.write(json.stdout, to: "dual.json").path)
        XCTAssertEqual(verdict.status, 0, verdict.stderr)

        let check = try fleet.run(["check", "--state", "off", "--config", "pinwatch.yaml"])
        XCTAssertEqual(check.status, 2, check.stdout + check.stderr)
        XCTAssertTrue(check.stdout.contains("RSA clients get a chain under CN=Pinwatch Dual R1 that no pin matches"), check.stdout)

        // Without key_types: one handshake with the full offer, which gets
        // the ECDSA chain: the RSA clients' chain is never seen.
        try writeConfig(keyTypes: "")
        let plain = try fleet.run(["snapshot", "--format", "json", "--state", "off", "--config", "pinwatch.yaml"])
        let plainHost = try XCTUnwrap(
            ((try JSONSerialization.jsonObject(with: Data(plain.stdout.utf8)) as? [String: Any])?["hosts"] as? [[String: Any]])?.first,
            plain.stderr)
        XCTAssertEqual(plainHost["status"] as? String, "ok")
        XCTAssertNil(plainHost["key_types"])
    }
}
