import Foundation
import PinwatchCore
import PinwatchProbe
import PinwatchTestSupport
import XCTest

/// OkHttp, curl and HPKP pins taken from files the test writes with the
/// pins of its own PKI, against live local servers; and `pinwatch import`
/// turning app files into a configuration that loads.
final class ClientPinStringsEndToEndTests: LocalFleetTestCase {
    private var api: LocalFleet.Host!

    override func setUpWithError() throws {
        try super.setUpWithError()
        let served = try fleet.serveLeaf("api.test")
        api = LocalFleet.Host(name: "api.test", port: served.server.port, leafCertificate: served.leaf.certificate)
        fleet.add(api)
    }

    private var rootSHA1: String { "sha1/" + Data(fleet.root.certificate.facts.spkiSHA1).base64EncodedString() }
    private var rootPin: String { LocalFleet.pin(fleet.root.certificate) }
    private var leafPin: String { LocalFleet.pin(api.leafCertificate!) }

    func testOkHttpCurlAndHPKPPinsAreCheckedAgainstTheLiveChain() throws {
        let backup = try LocalFleet.unrelatedPin()
        try fleet.write(
            """
            object Pinning {
                val pinner = CertificatePinner.Builder()
                    .add("api.test", "\(rootSHA1)", "\(backup)")
                    .build()
            }
            """, to: "Pinning.kt")
        try fleet.write(
            "curl --pinnedpubkey 'sha256//\(leafPin.dropFirst(7));sha256//\(backup.dropFirst(7))' https://api.test:\(api.port)/health\n",
            to: "health.sh")
        try fleet.write("Public-Key-Pins: pin-sha256=\"\(backup.dropFirst(7))\"; max-age=600\n", to: "headers.txt")
        let config = try fleet.writeConfig(settings: [
            "clients:",
            "  - {name: android legacy, okhttp: Pinning.kt}",
            "  - {name: health check, curl: health.sh}",
            "  - {name: browser, hpkp: headers.txt, host: api.test}",
        ])

        let okhttp = try fleet.run(["check", "--config", config.path, "--client", "android legacy"])
        XCTAssertEqual(okhttp.status, 0, "the SHA-1 of the root's SPKI matches: \(okhttp.stdout)")
        let curl = try fleet.run(["check", "--config", config.path, "--client", "health check"])
        XCTAssertEqual(curl.status, 1, curl.stdout)
        XCTAssertTrue(curl.stdout.contains("api.test:\(api.port) WARNING leaf_only: health check: only the leaf pin"), curl.stdout)
        let browser = try fleet.run(["check", "--config", config.path, "--client", "browser"])
        XCTAssertEqual(browser.status, 2, browser.stdout)
        XCTAssertTrue(browser.stdout.contains("CRITICAL blocked: browser: pinned clients refuse this host now"), browser.stdout)

        let lint = try fleet.run(["lint", "--config", config.path])
        XCTAssertTrue(lint.stdout.contains("SHA-1 pins are not supported by modern clients"), lint.stdout)
        XCTAssertTrue(lint.stdout.contains("Pinning.kt:3"), "the note names the line: \(lint.stdout)")
    }

    func testImportPrintsAStanzaThatLoadsAndErrorsNameTheFile() throws {
        try fleet.write(
            """
            <network-security-config>
              <domain-config>
                <domain>api.test</domain>
                <pin-set expiration="2099-01-01"><pin digest="SHA-256">\(rootPin.dropFirst(7))</pin></pin-set>
              </domain-config>
            </network-security-config>
            """, to: "network_security_config.xml")
        try fleet.write(
            "{\"TSKPinnedDomains\": {\"cdn.test\": {\"TSKPublicKeyHashes\": [\"\(leafPin.dropFirst(7))\", \"\(rootPin.dropFirst(7))\"]}}}",
            to: "trustkit.json")
        let imported = try fleet.run(["import", "network_security_config.xml", "trustkit.json"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertTrue(imported.stdout.contains("auto:"), imported.stdout)
        XCTAssertTrue(imported.stdout.contains("pins expire 2099-01-01"), imported.stdout)
        let pasted = try fleet.write(imported.stdout, to: "imported.yaml")
        let validate = try fleet.run(["validate", "--config", pasted.path])
        XCTAssertEqual(validate.status, 0, validate.stderr)
        XCTAssertTrue(validate.stdout.contains("valid, 2 hosts"), validate.stdout)

        let json = try fleet.run(["import", "--format", "json", "trustkit.json"])
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        XCTAssertEqual((document["sources"] as? [[String: Any]])?.first?["format"] as? String, "trustkit")

        try fleet.write([UInt8]("bplist00".utf8) + [0xD0, 0x08], to: "Info.plist")
        let binary = try fleet.run(["import", "Info.plist"])
        XCTAssertEqual(binary.status, 2)
        XCTAssertTrue(binary.stderr.contains("Info.plist: a binary property list: convert it first"), binary.stderr)

        try fleet.write("hello\n", to: "notes.txt")
        let unknown = try fleet.run(["import", "notes.txt"])
        XCTAssertEqual(unknown.status, 2)
        XCTAssertTrue(unknown.stderr.contains("notes.txt: not a format pinwatch reads: name it with --as"), unknown.stderr)

        try fleet.write("Public-Key-Pins: pin-sha256=\"\(rootPin.dropFirst(7))\"; max-age=1\n", to: "h.txt")
        let hostless = try fleet.run(["import", "h.txt"])
        XCTAssertTrue(hostless.stderr.contains("h.txt:1: names no host: give --host NAME"), hostless.stderr)
        let named = try fleet.run(["import", "--host", "api.test", "h.txt"])
        XCTAssertEqual(named.status, 0, named.stderr)
        XCTAssertTrue(named.stdout.contains("- host: \"api.test\"") || named.stdout.contains("- host: api.test"), named.stdout)
    }
}
