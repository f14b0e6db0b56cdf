import Foundation
import PinwatchCore
import XCTest

@testable import PinwatchImport

/// React Native's and Flutter's pin files, written from the libraries'
/// documentation.
final class CrossPlatformImporterTests: XCTestCase {
    private func read(_ text: String, _ format: ClientFormat, file: String) throws -> ImportedPins {
        try ClientSourceLoader(verify: { _, _, _ in false }).read(ImportFixtures.bytes(text), file: file, format: format)
    }

    private var sslConfig: String {
        """
        {
          "sha256Keys": {
            "api.example.com": ["sha256/\(ImportFixtures.base64(1))", "sha256/\(ImportFixtures.base64(2))"],
            "cdn.example.com": ["sha256/\(ImportFixtures.base64(3))", "sha256/\(ImportFixtures.base64(4))"]
          },
          "domains": {
            "api.example.com": {"enforcePinning": false, "expirationDate": "2027-06-01", "includeSubdomains": false}
          }
        }
        """
    }

    func testSSLManagerConfigKeepsEachDomainsOptions() throws {
        let bytes = [0xEF, 0xBB, 0xBF] + ImportFixtures.bytes(sslConfig.replacingOccurrences(of: "\n", with: "\r\n"))
        XCTAssertEqual(ClientSourceLoader.detect(bytes), .rnSSLManager)
        let pins = try ClientSourceLoader(verify: { _, _, _ in false }).read(bytes, file: "ssl_config.json", format: .rnSSLManager)
        XCTAssertEqual(pins.rules.map(\.domain), ["api.example.com", "cdn.example.com"])
        let api = pins.rules[0]
        XCTAssertFalse(api.enforced)
        XCTAssertFalse(api.includeSubdomains)
        XCTAssertEqual(api.expiration.map(DateText.iso8601), "2027-06-02T00:00:00Z", "the named day is still enforced")
        let cdn = pins.rules[1]
        XCTAssertTrue(cdn.includeSubdomains, "subdomains are included unless the domain says otherwise")
        XCTAssertTrue(cdn.enforced)
        XCTAssertEqual(cdn.specificity(for: "a.b.cdn.example.com"), "cdn.example.com".count, "at any depth")
        XCTAssertEqual(pins.notes.map(\.message), ["enforcePinning is false: failures are reported, not refused"])

        let bad = ImportFixtures.error { () throws(ClientSourceError) in
            try ReactNativeSSLManagerImporter.read(
                ImportFixtures.bytes("{\"sha256Keys\": {\"a.example\": [\"AAAA\"]}}"), file: "ssl_config.json")
        }
        XCTAssertTrue(bad?.description.hasPrefix("ssl_config.json: sha256Keys.a.example[0]: \"AAAA\"") == true, String(describing: bad))
    }

    func testInitializeSslPinningLiteralsInTypeScript() throws {
        let code = """
            import { initializeSslPinning } from 'react-native-ssl-public-key-pinning';
            const BACKUP = '\(ImportFixtures.base64(2))';

            await initializeSslPinning({
              'api.example.com': {
                includeSubdomains: true,
                publicKeyHashes: [
                  '\(ImportFixtures.base64(1))', // primary
                  BACKUP,
                ],
              },
              "pay.example.com": { includeSubdomains: false, publicKeyHashes: [`\(ImportFixtures.base64(3))`] },
              'dyn.example.com': { publicKeyHashes: [remoteHash()] },
            });
            """
        XCTAssertEqual(ClientSourceLoader.detect(ImportFixtures.bytes(code)), .rnPinning)
        let pins = try read(code, .rnPinning, file: "pinning.ts")
        XCTAssertEqual(pins.rules.map(\.domain), ["**.api.example.com", "pay.example.com"])
        XCTAssertEqual(pins.rules[0].pins, [ImportFixtures.pin(1), ImportFixtures.pin(2)])
        XCTAssertEqual(pins.rules[0].origin, "pinning.ts:5")
        XCTAssertNotNil(pins.rules[0].specificity(for: "api.example.com"), "**. covers the host itself, as OkHttp's pattern does")
        let notes = pins.notes.map(\.description)
        XCTAssertTrue(
            notes.contains("pinning.ts:12: pay.example.com: fewer than two hashes: iOS (TrustKit) refuses this configuration"), "\(notes)")
        XCTAssertTrue(
            notes.contains("pinning.ts:13: \"dyn.example.com\": publicKeyHashes is not a literal of this file: left out"), "\(notes)")
    }

    func testFlutterFingerprintsAreCertificatePinsForTheServerURLsHost() throws {
        let hex = (0..<32).map { String(format: "%02X", $0) }
        let code = """
            final result = await HttpCertificatePinning.check(
              serverURL: 'https://api.example.com/health',
              headerHttp: {},
              sha: SHA.SHA256,
              allowedSHAFingerprints: ['\(hex.joined(separator: ":"))', "\(hex.joined(separator: " "))"],
              timeout: 50,
            );
            dio.interceptors.add(CertificatePinningInterceptor(allowedSHAFingerprints: ['\(hex.joined().lowercased())']));
            """
        XCTAssertEqual(ClientSourceLoader.detect(ImportFixtures.bytes(code)), .flutter)
        let pins = try read(code, .flutter, file: "pinning.dart")
        XCTAssertEqual(pins.rules.map(\.domain), ["api.example.com", ""], "Dio's interceptor names no host: the entry's host: does")
        XCTAssertEqual(pins.rules[0].pins.map(\.kind), [.cert, .cert])
        XCTAssertEqual(pins.rules[0].pins[0].digest, Array(0..<32))
        XCTAssertEqual(Set(pins.rules.flatMap(\.pins)).count, 1, "colons, spaces and none are the same fingerprint")
        XCTAssertTrue(pins.notes.allSatisfy { $0.message.contains("break at every renewal, even one that keeps the key") })
    }

    /// A list that a `)` ends looped forever (a fuzzing finding, kept in
    /// Fuzz/corpus/cross-platform).
    func testAListClosedByAnotherBracketEnds() throws {
        let pins = try read("initializeSslPinning({ 'a.example': { publicKeyHashes: [f(), `x`) } })", .rnPinning, file: "p.ts")
        XCTAssertEqual(pins.rules, [])
        XCTAssertEqual(pins.notes.map(\.message), ["\"a.example\": publicKeyHashes is not a literal of this file: left out"])
    }
}
