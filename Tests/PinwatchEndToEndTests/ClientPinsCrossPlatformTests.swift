import Foundation
import PinwatchCore
import PinwatchLocalWorld
import PinwatchProbe
import PinwatchTestSupport
import XCTest

/// React Native's and Flutter's pin files against loopback chains: api.test
/// and cdn.test are leaves of the fleet's issuing CA under its root.
///
/// - rn 3.0 (react-native-ssl-manager, ssl_config.json saved with a byte
///   order mark and CRLF): the root for api.test; stale keys for cdn.test.
/// - rn 3.1 (react-native-ssl-public-key-pinning, TypeScript): the issuing CA.
/// - flutter 2.0 (http_certificate_pinning): api.test's leaf certificate.
final class ClientPinsCrossPlatformTests: LocalFleetTestCase {
    private var api: LocalFleet.Host!
    private var cdn: LocalFleet.Host!
    private var config: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        let apiServed = try fleet.serveLeaf("api.test")
        let cdnServed = try fleet.serveLeaf("cdn.test")
        api = fleet.add(LocalFleet.Host(name: "api.test", port: apiServed.server.port, leafCertificate: apiServed.leaf.certificate))
        cdn = fleet.add(LocalFleet.Host(name: "cdn.test", port: cdnServed.server.port, leafCertificate: cdnServed.leaf.certificate))
        let backup = try LocalFleet.unrelatedPin()
        let root = LocalFleet.pin(fleet.root.certificate)
        let sslConfig = """
            {
              "sha256Keys": {
                "api.test": ["\(root)", "\(backup)"],
                "cdn.test": ["\(try LocalFleet.unrelatedPin())", "\(backup)"]
              },
              "domains": {"api.test": {"includeSubdomains": false}, "cdn.test": {"includeSubdomains": false}}
            }
            """
        try fleet.write([0xEF, 0xBB, 0xBF] + Array(sslConfig.replacingOccurrences(of: "\n", with: "\r\n").utf8), to: "ssl_config.json")
        let issuing = LocalFleet.pin(fleet.issuing.certificate).dropFirst("sha256/".count)
        try fleet.write(
            """
            import { initializeSslPinning } from 'react-native-ssl-public-key-pinning';

            await initializeSslPinning({
              'api.test': {
                includeSubdomains: false,
                publicKeyHashes: ['\(issuing)', '\(backup.dropFirst("sha256/".count))'],
              },
            });
            """, to: "pinning.ts")
        let leafHex = apiServed.leaf.certificate.facts.certSHA256.map { String(format: "%02X", $0) }.joined(separator: ":")
        try fleet.write(
            """
            final secure = await HttpCertificatePinning.check(
              serverURL: "https://api.test/status",
              headerHttp: {},
              sha: SHA.SHA256,
              allowedSHAFingerprints: ["\(leafHex)"],
              timeout: 50,
            );
            """, to: "pinning.dart")
        config = try fleet.writeConfig(settings: [
            "clients:",
            "  - {name: rn 3.0, rn_ssl_manager: ssl_config.json}",
            "  - {name: rn 3.1, rn_pinning: pinning.ts}",
            "  - {name: flutter 2.0, flutter: pinning.dart}",
        ])
    }

    func testEachReleaseIsJudgedByItsLibrarysRule() throws {
        let rn30 = try fleet.run(["check", "--config", config.path, "--client", "rn 3.0"])
        XCTAssertEqual(rn30.status, 2, "\(rn30.stdout)\(rn30.stderr)")
        XCTAssertTrue(rn30.stdout.contains("cdn.test:\(cdn.port) CRITICAL blocked: rn 3.0: pinned clients refuse"), rn30.stdout)
        XCTAssertFalse(rn30.stdout.contains("api.test:\(api.port) CRITICAL"), rn30.stdout)

        let rn31 = try fleet.run(["check", "--config", config.path, "--client", "rn 3.1"])
        XCTAssertEqual(rn31.status, 0, "the issuing CA's key matches:\n\(rn31.stdout)\(rn31.stderr)")

        let flutter = try fleet.run(["check", "--config", config.path, "--client", "flutter 2.0"])
        XCTAssertEqual(flutter.status, 1, "\(flutter.stdout)\(flutter.stderr)")
        XCTAssertTrue(flutter.stdout.contains("api.test:\(api.port) WARNING leaf_only: flutter 2.0: only the leaf pin"), flutter.stdout)
    }

    func testSnapshotJSONNamesEachFormatInTheSchema() throws {
        let outcome = try fleet.run(["snapshot", "--config", config.path, "--format", "json"])
        let schema = try SnapshotSchema.validate(try fleet.write(outcome.stdout, to: "cross.json").path)
        XCTAssertEqual(schema.status, 0, schema.stderr)
        for format in ["rn_ssl_manager", "rn_pinning", "flutter"] {
            XCTAssertTrue(
                outcome.stdout.contains("\"format\": \"\(format)\"") || outcome.stdout.contains("\"format\":\"\(format)\""), format)
        }
    }

    func testLintWarnsThatCertificateFingerprintsBreakAtEveryRenewal() throws {
        let lint = try fleet.run(["lint", "--config", config.path])
        // A release here refuses a host now: an error, lint's exit 4.
        XCTAssertEqual(lint.status, 4, "\(lint.stdout)\(lint.stderr)")
        XCTAssertTrue(
            lint.stdout.contains("warning: flutter 2.0: ") && lint.stdout.contains("pinning.dart:5: certificate fingerprints (cert: pins)"),
            lint.stdout)
        XCTAssertTrue(lint.stdout.contains("they break at every renewal, even one that keeps the key"), lint.stdout)
    }

    func testImportRecognisesEachFile() throws {
        for (file, title) in [
            ("ssl_config.json", "react-native-ssl-manager ssl_config.json"),
            ("pinning.ts", "react-native-ssl-public-key-pinning initializeSslPinning"),
            ("pinning.dart", "Flutter http_certificate_pinning"),
        ] {
            let imported = try fleet.run(["import", file])
            XCTAssertEqual(imported.status, 0, imported.stderr)
            XCTAssertTrue(imported.stdout.contains(title), imported.stdout)
            let pasted = try fleet.write(imported.stdout, to: "imported.yaml")
            let validate = try fleet.run(["validate", "--config", pasted.path])
            XCTAssertEqual(validate.status, 0, "\(file): the stanza loads: \(validate.stderr)\n\(imported.stdout)")
        }
    }

    /// The same CA and key type, a new leaf: the fingerprint release breaks.
    func testPreflightOfARenewedLeafBreaksTheFingerprintRelease() throws {
        let renewed = try fleet.issuing.issueLeaf(commonName: "api.test", dnsNames: ["api.test"])
        let chain = try fleet.write(renewed.certificate.pem + fleet.issuing.certificate.pem, to: "renewed.pem")
        let outcome = try fleet.run(["preflight", "api.test", "--chain", chain.path, "--config", config.path])
        XCTAssertEqual(outcome.status, 2, "\(outcome.stdout)\(outcome.stderr)")
        XCTAssertTrue(outcome.stdout.contains("BREAKS flutter 2.0"), outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("✓ client rn 3.0: ok"), outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("✓ client rn 3.1: ok"), outcome.stdout)
    }
}
