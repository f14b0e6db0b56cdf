import Foundation
import XCTest

/// `trust: system` on a machine whose store is empty (the .deb installed
/// without ca-certificates): the verdict says so, instead of blaming the
/// server's chain alone. OpenSSL's own variables point the store elsewhere.
final class SystemTrustStoreTests: LocalFleetTestCase {
    func testAnEmptySystemStoreIsNamedInTheVerdict() throws {
        let host = try fleet.addOK("ok.test")
        let config = try fleet.write(
            """
            timeout: 3s
            hosts:
              - host: ok.test
                port: \(host.port)
                connect: 127.0.0.1
                pins:
                  ca: [\(host.ca[0])]
            """, to: "system.yaml")
        let empty = fleet.directory.appendingPathComponent("empty-certs")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let missing = fleet.directory.appendingPathComponent("no-cert.pem").path

        let blocked = try fleet.run(
            ["snapshot", "--config", config.path, "--format", "json", "--state", "off"],
            environment: ["SSL_CERT_FILE": missing, "SSL_CERT_DIR": empty.path])
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(blocked.stdout.utf8)) as? [String: Any], blocked.stderr)
        let report = try XCTUnwrap((document["hosts"] as? [[String: Any]])?.first)
        let reason = try XCTUnwrap(report["reason"] as? String)
        XCTAssertEqual(report["status"] as? String, "blocked", reason)
        XCTAssertTrue(
            reason.contains("the system trust store is empty (\(missing), \(empty.path)): install ca-certificates"), reason)

        // A store that holds the fleet's root: trusted, and nothing said.
        let trusted = try fleet.run(
            ["snapshot", "--config", config.path, "--format", "json", "--state", "off"],
            environment: ["SSL_CERT_FILE": fleet.trustURL.path, "SSL_CERT_DIR": empty.path])
        let trustedDocument = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(trusted.stdout.utf8)) as? [String: Any])
        let trustedReport = try XCTUnwrap((trustedDocument["hosts"] as? [[String: Any]])?.first)
        XCTAssertEqual(trustedReport["status"] as? String, "ok", trusted.stdout)
        XCTAssertFalse(trusted.stdout.contains("trust store is empty"), trusted.stdout)
    }
}
