import Foundation
import PinwatchCore
import XCTest

@testable import PinwatchImport

/// TrustKit configured in code, as its README shows it: a Swift or
/// Objective-C dictionary literal given to `initSharedInstance`.
final class TrustKitCodeImporterTests: XCTestCase {
    private func read(_ text: String, file: String = "AppDelegate.swift") throws -> ImportedPins {
        try TrustKitImporter.read(ImportFixtures.bytes(text), file: file)
    }

    func testASwiftLiteralWithConstantsAndTheDocumentedKeys() throws {
        let pins = try read(
            """
            import TrustKit

            let apiDomain = "API.example.com"
            private let backupKey: String = "\(ImportFixtures.base64(2))"

            func application(_ application: UIApplication, didFinishLaunchingWithOptions options: [AnyHashable: Any]?) -> Bool {
                let trustKitConfig: [String: Any] = [
                    kTSKSwizzleNetworkDelegates: false,
                    kTSKPinnedDomains: [
                        apiDomain: [
                            kTSKEnforcePinning: NSNumber(value: false),
                            kTSKIncludeSubdomains: true,
                            kTSKExpirationDate: "2027-03-01",
                            // The second is the backup key.
                            kTSKPublicKeyHashes: ["\(ImportFixtures.base64(1))", backupKey],
                            kTSKReportUris: [reportURL.absoluteString],
                        ],
                        "cdn.example.com": [
                            kTSKPublicKeyHashes: ["\(ImportFixtures.base64(3))", "\(ImportFixtures.base64(4))"],
                        ],
                        "img.example.com": [kTSKPublicKeyHashes: [Pins.primary, "\(ImportFixtures.base64(5))"]],
                        "\\(environment).example.com": [kTSKPublicKeyHashes: ["\(ImportFixtures.base64(6))"]],
                    ],
                ]
                TrustKit.initSharedInstance(withConfiguration: trustKitConfig)
                return true
            }
            """)
        XCTAssertEqual(pins.format, .trustkit)
        XCTAssertEqual(pins.rules.map(\.domain), ["api.example.com", "cdn.example.com"])
        let api = pins.rules[0]
        XCTAssertEqual(api.pins, [ImportFixtures.pin(1), ImportFixtures.pin(2)])
        XCTAssertTrue(api.includeSubdomains)
        XCTAssertFalse(api.enforced)
        XCTAssertEqual(api.expiration, Date(timeIntervalSince1970: 1_803_859_200))
        XCTAssertEqual(pins.rules[1].pins, [ImportFixtures.pin(3), ImportFixtures.pin(4)])
        XCTAssertTrue(pins.rules[1].enforced)
        XCTAssertEqual(
            pins.notes.map(\.description),
            [
                "AppDelegate.swift: TSKPinnedDomains.img.example.com: not read: \"Pins.primary\" is not resolved in this file",
                "AppDelegate.swift: TSKPinnedDomains: a domain named \"\"\\(environment).example.com\"\", not a string constant of this file: not read",
                "AppDelegate.swift: TSKPinnedDomains.API.example.com: TSKEnforcePinning is false: failures are reported, not refused",
            ])
    }

    func testAnObjectiveCLiteral() throws {
        let pins = try read(
            """
            static NSString *const kPinnedHost = @"www.example.com";
            #define BACKUP_PIN @"\(ImportFixtures.base64(2))"

            NSDictionary *trustKitConfig = @{
                kTSKSwizzleNetworkDelegates: @NO,
                kTSKPinnedDomains: @{
                    kPinnedHost: @{
                        kTSKIncludeSubdomains: @YES,
                        kTSKEnforcePinning: @(YES),
                        kTSKPublicKeyHashes: @[@"\(ImportFixtures.base64(1))", BACKUP_PIN],
                    },
                    @"legacy.example.com": @{ kTSKPublicKeyHashes: @[@"\(ImportFixtures.base64(3))"] }
                }
            };
            [TrustKit initSharedInstanceWithConfiguration:trustKitConfig];
            """, file: "AppDelegate.m")
        XCTAssertEqual(pins.rules.map(\.domain), ["legacy.example.com", "www.example.com"])
        XCTAssertEqual(pins.rules[1].pins, [ImportFixtures.pin(1), ImportFixtures.pin(2)])
        XCTAssertTrue(pins.rules[1].includeSubdomains)
        XCTAssertTrue(pins.rules[1].enforced)
        XCTAssertEqual(
            pins.notes.map(\.message), ["TrustKit requires at least two hashes, one a backup key (it refuses this configuration)"])
    }

    func testCodeIsRecognisedAsTrustKit() throws {
        let bytes = ImportFixtures.bytes(
            "TrustKit.initSharedInstance(withConfiguration: [kTSKPinnedDomains: [\"a.example.com\": [kTSKPublicKeyHashes: "
                + "[\"\(ImportFixtures.base64(1))\", \"\(ImportFixtures.base64(2))\"]]]])")
        XCTAssertEqual(ClientSourceLoader.detect(bytes), .trustkit)
        let pins = try ClientSourceLoader(verify: { _, _, _ in false }).read(bytes, file: "Pinning.swift", format: .trustkit)
        XCTAssertEqual(pins.rules.map(\.domain), ["a.example.com"])
        XCTAssertEqual(pins.notes, [])
    }

    func testTheKeysWrittenAsStrings() throws {
        let pins = try read(
            """
            TrustKit.initSharedInstance(withConfiguration: ["TSKPinnedDomains": ["a.example.com": [
                "TSKPublicKeyHashes": ["\(ImportFixtures.base64(1))", "\(ImportFixtures.base64(2))"], "TSKIncludeSubdomains": true]]])
            """)
        XCTAssertEqual(pins.rules.map(\.domain), ["a.example.com"])
        XCTAssertEqual(pins.rules.first?.includeSubdomains, true)
    }

    func testNothingResolvedIsAnErrorNamingWhat() {
        let failure = ImportFixtures.error { () throws(ClientSourceError) in
            try TrustKitImporter.read(
                ImportFixtures.bytes("let config = [kTSKPinnedDomains: [Config.host: [kTSKPublicKeyHashes: Config.hashes]]]"),
                file: "Pinning.swift")
        }
        XCTAssertEqual(
            failure?.description, "Pinning.swift: kTSKPinnedDomains: no domain could be read: \"Config.host\" not resolved in this file")
        let notALiteral = ImportFixtures.error { () throws(ClientSourceError) in
            try TrustKitImporter.read(ImportFixtures.bytes("config[kTSKPinnedDomains] = domains"), file: "Pinning.swift")
        }
        XCTAssertEqual(
            notALiteral?.description, "Pinning.swift: kTSKPinnedDomains: no value after kTSKPinnedDomains: not a TrustKit configuration")
    }

    /// Nested as deep as the bytes go, or wide: read in one pass, the
    /// recursion cut at a fixed depth.
    func testDeepOrHugeLiteralsAreBounded() {
        let deep =
            "let c = [kTSKPinnedDomains: " + String(repeating: "[", count: 200_000) + String(repeating: "]", count: 200_000) + "]"
        let wide =
            "let c = [kTSKPinnedDomains: [\"a.example\": [kTSKPublicKeyHashes: ["
            + String(repeating: "x, ", count: 100_000) + "]]]]"
        let started = ContinuousClock.now
        for text in [deep, wide] {
            let failure = ImportFixtures.error { () throws(ClientSourceError) in
                try TrustKitImporter.read(ImportFixtures.bytes(text), file: "big.swift")
            }
            XCTAssertNotNil(failure, "nothing to import")
        }
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(10))
    }
}
