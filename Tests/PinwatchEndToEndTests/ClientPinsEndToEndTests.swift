import Foundation
import PinwatchCore
import PinwatchLocalWorld
import PinwatchProbe
import PinwatchTestSupport
import XCTest

/// App releases' pins (DESIGN §12) end to end: pins read from the apps' own files, two hosts on
/// local servers, releases that see different things.
///
/// api.test and cdn.test are served by leaves of the fleet's issuing CA.
/// Android 5.2 (network security config) pins the root for cdn.test and
/// its subdomains, with api.test in a nested domain-config; iOS 7.0
/// (TrustKit plist) pins api.test's leaf and a stale backup, so only the
/// leaf matches there; iOS 7.1 (TrustKit JSON) pins the root again.
final class ClientPinsEndToEndTests: LocalFleetTestCase {
    private var api: LocalFleet.Host!
    private var cdn: LocalFleet.Host!

    override func setUpWithError() throws {
        try super.setUpWithError()
        let apiServed = try fleet.serveLeaf("api.test")
        let cdnServed = try fleet.serveLeaf("cdn.test")
        api = LocalFleet.Host(name: "api.test", port: apiServed.server.port, leafCertificate: apiServed.leaf.certificate)
        cdn = LocalFleet.Host(name: "cdn.test", port: cdnServed.server.port, leafCertificate: cdnServed.leaf.certificate)
        fleet.add(api)
        fleet.add(cdn)
    }

    private func base64(_ pin: String) -> String { String(pin.dropFirst("sha256/".count)) }

    private var rootPin: String { LocalFleet.pin(fleet.root.certificate) }

    private func writeClients(extra: [String] = []) throws -> URL {
        let backup = try LocalFleet.unrelatedPin()
        let nsc = """
            <?xml version="1.0" encoding="utf-8"?>
            <network-security-config>
              <domain-config>
                <domain includeSubdomains="true">cdn.test</domain>
                <pin-set>
                  <pin digest="SHA-256">\(base64(rootPin))</pin>
                  <pin digest="SHA-256">\(base64(backup))</pin>
                </pin-set>
                <domain-config>
                  <domain>api.test</domain>
                </domain-config>
              </domain-config>
              <debug-overrides>
                <trust-anchors><certificates src="user"/></trust-anchors>
              </debug-overrides>
            </network-security-config>
            """
        try fleet.write(nsc, to: "network_security_config.xml")
        let leafPin = LocalFleet.pin(try XCTUnwrap(api.leafCertificate))
        let plist = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
              <key>TSKConfiguration</key>
              <dict>
                <key>TSKPinnedDomains</key>
                <dict>
                  <key>api.test</key>
                  <dict>
                    <key>TSKPublicKeyHashes</key>
                    <array><string>\(base64(leafPin))</string><string>\(base64(backup))</string></array>
                  </dict>
                  <key>cdn.test</key>
                  <dict>
                    <key>TSKPublicKeyHashes</key>
                    <array><string>\(base64(rootPin))</string><string>\(base64(backup))</string></array>
                  </dict>
                </dict>
              </dict>
            </dict>
            </plist>
            """
        try fleet.write(plist, to: "Info-7.0.plist")
        let json = """
            {"TSKPinnedDomains": {"api.test": {"TSKPublicKeyHashes": ["\(base64(rootPin))", "\(base64(backup))"],
              "TSKIncludeSubdomains": false}}}
            """
        try fleet.write(json, to: "trustkit-7.1.json")
        let clients =
            [
                "clients:",
                "  - name: android 5.2",
                "    nsc: network_security_config.xml",
                "  - name: ios 7.0",
                "    trustkit: Info-7.0.plist",
                "  - name: ios 7.1",
                "    trustkit: trustkit-7.1.json",
            ] + extra
        return try fleet.writeConfig(settings: clients)
    }

    func testCheckAndTheClientFormSayWhichReleaseBreaks() throws {
        let config = try writeClients()

        let all = try fleet.run(["check", "--config", config.path])
        XCTAssertEqual(all.status, 1, "a release that sees leaf_only is a warning:\n\(all.stdout)\(all.stderr)")
        XCTAssertTrue(all.stdout.hasPrefix("PINWATCH WARNING - api.test:\(api.port) ios 7.0: only the leaf pin"), all.stdout)

        let ios70 = try fleet.run(["check", "--config", config.path, "--client", "ios 7.0"])
        XCTAssertEqual(ios70.status, 1, ios70.stdout)
        XCTAssertTrue(
            ios70.stdout.contains("api.test:\(api.port) WARNING leaf_only: ios 7.0: only the leaf pin still matches"), ios70.stdout)
        XCTAssertFalse(ios70.stdout.contains("cdn.test:\(cdn.port) WARNING"), "cdn.test is fine for ios 7.0: \(ios70.stdout)")

        for release in ["android 5.2", "ios 7.1"] {
            let outcome = try fleet.run(["check", "--config", config.path, "--client", release])
            XCTAssertEqual(outcome.status, 0, "\(release): \(outcome.stdout)")
            XCTAssertTrue(outcome.stdout.hasPrefix("PINWATCH OK"), outcome.stdout)
        }
        let ios71 = try fleet.run(["check", "--config", config.path, "--client", "ios 7.1"])
        XCTAssertTrue(ios71.stdout.contains("1 host fine"), "ios 7.1 pins api.test only: \(ios71.stdout)")

        let unknown = try fleet.run(["check", "--config", config.path, "--client", "ios 9"])
        XCTAssertEqual(unknown.status, 3)
        XCTAssertTrue(unknown.stdout.contains("no client named \"ios 9\""), unknown.stdout)
        XCTAssertTrue(unknown.stdout.contains("\"android 5.2\""), "the known names are listed: \(unknown.stdout)")
    }

    /// `trust_store:` through the binary: a release whose own store (a
    /// folder, as Android ships it) lacks the fleet's root refuses what the
    /// host's store trusts; one whose store holds it accepts.
    func testAReleaseJudgedOnItsOwnTrustStore() throws {
        let stranger = try CertificateAuthority.makeRoot(commonName: "Stranger Root", organization: "Elsewhere")
        for folder in ["store-without", "store-with"] {
            try FileManager.default.createDirectory(at: fleet.directory.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        try fleet.write(stranger.certificate.pem, to: "store-without/1a2b3c4d.0")
        try fleet.write(fleet.root.certificate.pem, to: "store-with/5e6f7a8b.0")
        let config = try writeClients(extra: [
            "  - name: android old", "    nsc: network_security_config.xml", "    trust_store: store-without",
            "  - name: android new", "    nsc: network_security_config.xml", "    trust_store: store-with/",
        ])
        let refused = try fleet.run(["check", "--config", config.path, "--client", "android old"])
        XCTAssertEqual(refused.status, 2, "\(refused.stdout)\(refused.stderr)")
        XCTAssertTrue(refused.stdout.contains("not trusted") || refused.stdout.contains("untrusted"), refused.stdout)
        let accepted = try fleet.run(["check", "--config", config.path, "--client", "android new"])
        XCTAssertEqual(accepted.status, 0, "\(accepted.stdout)\(accepted.stderr)")

        let missing = try writeClients(extra: [
            "  - name: android gone", "    nsc: network_security_config.xml", "    trust_store: nowhere",
        ])
        let problem = try fleet.run(["check", "--config", missing.path])
        XCTAssertEqual(problem.status, 3, problem.stdout)
        XCTAssertTrue((problem.stdout + problem.stderr).contains("trust_store:"), problem.stdout + problem.stderr)
    }

    func testSnapshotJSONCarriesEachReleasesView() throws {
        let config = try writeClients()
        let outcome = try fleet.run(["snapshot", "--config", config.path, "--format", "json"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let file = try fleet.write(outcome.stdout, to: "clients.json")
        let schema = try SnapshotSchema.validate(file.path)
        XCTAssertEqual(schema.status, 0, "the clients array is in the schema: \(schema.stderr)")
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any])
        let hosts = try XCTUnwrap(document["hosts"] as? [[String: Any]])
        let apiHost = try XCTUnwrap(hosts.first { $0["host"] as? String == "api.test" })
        XCTAssertEqual(apiHost["status"] as? String, "leaf_only", "the worst release decides the host's row")
        let clients = try XCTUnwrap(apiHost["clients"] as? [[String: Any]])
        let statuses = Dictionary(uniqueKeysWithValues: clients.map { ($0["client"] as! String, $0["status"] as! String) })
        XCTAssertEqual(statuses, ["android 5.2": "ok", "ios 7.0": "leaf_only", "ios 7.1": "ok"])
        let android = try XCTUnwrap(clients.first { $0["client"] as? String == "android 5.2" })
        XCTAssertEqual(android["matched_tiers"] as? [String], ["ca"], "a pin on the root is inferred to be a CA pin")
        let rules = try XCTUnwrap(android["rules"] as? [[String: Any]])
        XCTAssertEqual(rules.first?["domain"] as? String, "api.test", "the nested domain-config is the more specific rule")
        XCTAssertTrue((rules.first?["origin"] as? String ?? "").hasSuffix("network_security_config.xml:10"), "\(rules)")
        let cdnHost = try XCTUnwrap(hosts.first { $0["host"] as? String == "cdn.test" })
        XCTAssertEqual(cdnHost["status"] as? String, "ok")
        XCTAssertEqual((cdnHost["clients"] as? [[String: Any]])?.count, 2, "ios 7.1 does not pin cdn.test")
    }

    func testLintNamesTheLeafOnlyReleaseAndTheSourcesOwnProblems() throws {
        let config = try writeClients()
        let outcome = try fleet.run(["lint", "--config", config.path])
        XCTAssertEqual(outcome.status, 1, "warnings exit 1:\n\(outcome.stdout)\(outcome.stderr)")
        XCTAssertTrue(
            outcome.stdout.contains("warning: ios 7.0: api.test: only the leaf matches: this release breaks at the next leaf renewal"),
            outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("(a backup, or stale)"), "the unmatched backup is listed: \(outcome.stdout)")
        XCTAssertFalse(outcome.stdout.contains("no backup pin"), "every set here has a backup: \(outcome.stdout)")
        XCTAssertTrue(outcome.stdout.contains("3 clients, 2 hosts"), outcome.stdout)
        XCTAssertFalse(outcome.stdout.containsControlBytes)
    }

    /// Android's `<domain includeSubdomains="true">apps.invalid</domain>`
    /// is a pattern: its base, which the app may never call (this one does
    /// not even resolve), joined the poll and turned `check --client` UNKNOWN.
    func testAnIncludeSubdomainsBaseIsNotProbed() throws {
        try fleet.write(
            """
            <network-security-config>
              <domain-config>
                <domain includeSubdomains="true">apps.invalid</domain>
                <pin-set>
                  <pin digest="SHA-256">\(base64(rootPin))</pin>
                  <pin digest="SHA-256">\(base64(try LocalFleet.unrelatedPin()))</pin>
                </pin-set>
                <domain-config><domain>api.test</domain></domain-config>
              </domain-config>
            </network-security-config>
            """, to: "nsc-base.xml")
        let config = try fleet.writeConfig(settings: ["clients:", "  - {name: android 7, nsc: nsc-base.xml}"], only: [api])
        let check = try fleet.run(["check", "--config", config.path, "--client", "android 7"])
        XCTAssertEqual(check.status, 0, "\(check.stdout)\(check.stderr)")
        XCTAssertTrue(check.stdout.hasPrefix("PINWATCH OK"), check.stdout)
        XCTAssertFalse(check.stdout.contains("apps.invalid"), check.stdout)
    }

    /// Lint said "0 warnings" and exited 0 for hosts it never reached.
    func testLintNamesTheHostsItCouldNotProbeAndFailsWhenNothingWasChecked() throws {
        try fleet.write(
            "<network-security-config><domain-config><domain>api.test</domain><domain>cdn.test</domain><pin-set>"
                + "<pin digest=\"SHA-256\">\(base64(rootPin))</pin><pin digest=\"SHA-256\">\(base64(try LocalFleet.unrelatedPin()))</pin>"
                + "</pin-set></domain-config></network-security-config>", to: "nsc-lint.xml")
        let closed = LocalFleet.Host(name: "api.test", port: try LocalPorts.closedPort())
        let settings = ["clients:", "  - {name: android 6, nsc: nsc-lint.xml}"]

        let nothing = try fleet.run(["lint", "--config", try fleet.writeConfig(settings: settings, only: [closed], name: "down.yaml").path])
        XCTAssertEqual(nothing.status, 3, "nothing could be checked:\n\(nothing.stdout)\(nothing.stderr)")
        XCTAssertTrue(
            nothing.stdout.contains("warning: android 6: api.test:\(closed.port): not probed, so its pins were not checked: probe failed"),
            nothing.stdout)
        XCTAssertTrue(nothing.stdout.contains("nothing checked: no host the clients pin could be probed"), nothing.stdout)

        let partly = try fleet.run(
            ["lint", "--config", try fleet.writeConfig(settings: settings, only: [closed, cdn], name: "half.yaml").path])
        XCTAssertEqual(partly.status, 1, "the unprobed host is a warning:\n\(partly.stdout)\(partly.stderr)")
        XCTAssertTrue(partly.stdout.contains("api.test:\(closed.port): not probed"), partly.stdout)
        XCTAssertFalse(partly.stdout.contains("cdn.test:\(cdn.port): not probed"), partly.stdout)
        XCTAssertFalse(partly.stdout.contains("nothing checked"), partly.stdout)
    }

    /// After `expiration` Android stops checking: a stale pin-set no longer
    /// blocks, and both the JSON and lint say the pins expired.
    func testExpiredAndroidPinsAreReportedNotEnforced() throws {
        let stale = try LocalFleet.unrelatedPin()
        let soon = DateText.day(Date().addingTimeInterval(5 * 86_400))
        try fleet.write(
            """
            <network-security-config>
              <domain-config>
                <domain>api.test</domain>
                <pin-set expiration="2020-01-01"><pin digest="SHA-256">\(base64(stale))</pin></pin-set>
              </domain-config>
              <domain-config>
                <domain>cdn.test</domain>
                <pin-set expiration="\(soon)"><pin digest="SHA-256">\(base64(rootPin))</pin></pin-set>
              </domain-config>
            </network-security-config>
            """, to: "nsc-4.xml")
        let config = try fleet.writeConfig(settings: ["clients:", "  - {name: android 4.0, nsc: nsc-4.xml}"])
        let outcome = try fleet.run(["snapshot", "--config", config.path, "--format", "json"])
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any])
        let hosts = try XCTUnwrap(document["hosts"] as? [[String: Any]])
        func client(_ host: String) throws -> [String: Any] {
            let entry = try XCTUnwrap(hosts.first { $0["host"] as? String == host })
            return try XCTUnwrap((entry["clients"] as? [[String: Any]])?.first)
        }
        XCTAssertEqual(try client("api.test")["status"] as? String, "unpinned", "expired pins are not enforced")
        XCTAssertEqual(try client("api.test")["alerts"] as? [String], ["pins_expired"])
        XCTAssertEqual(try client("cdn.test")["status"] as? String, "ok")
        XCTAssertEqual(try client("cdn.test")["alerts"] as? [String], ["pins_expiring"])
        XCTAssertEqual(try client("cdn.test")["severity"] as? String, "warning")

        let lint = try fleet.run(["lint", "--config", config.path])
        XCTAssertEqual(lint.status, 1, lint.stdout + lint.stderr)
        XCTAssertTrue(
            lint.stdout.contains("android 4.0: api.test: pins expired 2020-01-01: this release no longer checks them"), lint.stdout)
        XCTAssertTrue(lint.stdout.contains("android 4.0: cdn.test: pins expire \(soon) (in 4 days)"), lint.stdout)
    }

    func testHostsNamedOnlyByClientsJoinThePollOnce() throws {
        // No hosts: entry names them: the clients' names are probed (port
        // 443 on a name that does not resolve here: an error, not silence).
        try fleet.write(
            "<network-security-config><domain-config><domain>only-in-app.invalid</domain><pin-set>"
                + "<pin digest=\"SHA-256\">\(base64(rootPin))</pin></pin-set></domain-config></network-security-config>",
            to: "nsc.xml")
        try fleet.write(
            "{\"TSKPinnedDomains\": {\"only-in-app.invalid\": {\"TSKPublicKeyHashes\": [\"\(base64(rootPin))\"]}}}", to: "tk.json")
        let config = try fleet.write(
            "timeout: 1s\nclients:\n  - {name: a, nsc: nsc.xml}\n  - {name: b, trustkit: tk.json}\n", to: "only-clients.yaml")
        let validate = try fleet.run(["validate", "--config", config.path])
        XCTAssertEqual(validate.status, 0, validate.stderr)
        XCTAssertTrue(validate.stdout.contains("valid, 1 host, 2 clients"), validate.stdout)
    }

    func testBrokenSourcesFailTheConfigurationUnlessOptional() throws {
        try fleet.write(
            "<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [\n<!ENTITY lol \"lol\">\n<!ENTITY lol2 \"&lol;&lol;&lol;&lol;\">\n]>\n"
                + "<network-security-config>&lol2;</network-security-config>\n", to: "laughs.xml")
        let required = try fleet.write("clients:\n  - name: evil\n    nsc: laughs.xml\nhosts: []\n", to: "required.yaml")
        let failed = try fleet.run(["validate", "--config", required.path])
        XCTAssertEqual(failed.status, 2)
        XCTAssertTrue(failed.stderr.contains("required.yaml:2: clients: client \"evil\": "), failed.stderr)
        XCTAssertTrue(failed.stderr.contains("laughs.xml:2: <!DOCTYPE is not allowed"), failed.stderr)
        let check = try fleet.run(["check", "--config", required.path])
        XCTAssertEqual(check.status, 3, "check answers configuration errors with UNKNOWN")

        let optional = try fleet.write(
            "clients:\n  - name: evil\n    nsc: laughs.xml\n    optional: true\nhosts: []\n", to: "optional.yaml")
        let loaded = try fleet.run(["validate", "--config", optional.path, "--allow-empty"])
        XCTAssertEqual(loaded.status, 0, loaded.stderr)
        XCTAssertTrue(loaded.stderr.contains("(optional: left out)"), loaded.stderr)
    }

    func testASignedDynamicListCountsOnlyValidUnexpiredEntries() throws {
        let signer = try PrivateKey.ecdsa(.p256)
        let stranger = try PrivateKey.ecdsa(.p256)
        let apiLeaf = try XCTUnwrap(api.leafCertificate).facts.certSHA256
        let cdnLeaf = try XCTUnwrap(cdn.leafCertificate).facts.certSHA256
        let later = Int(Date().timeIntervalSince1970) + 90 * 86_400
        let past = Int(Date().timeIntervalSince1970) - 86_400
        let list = try SignedPinListFixture.json(
            [
                .init(name: "api.test", fingerprint: apiLeaf, expires: later),
                // cdn.test: one entry tampered, one expired; nothing valid remains.
                .init(name: "cdn.test", fingerprint: cdnLeaf, expires: later, tampered: true),
                .init(name: "cdn.test", fingerprint: cdnLeaf, expires: past),
            ], signedBy: signer)
        try fleet.write(list, to: "pins.json")
        let key = Data(signer.uncompressedPoint).base64EncodedString()
        let config = try fleet.writeConfig(settings: [
            "clients:", "  - name: web", "    dynamic_list: {file: pins.json, public_key: \"\(key)\"}",
        ])
        let web = try fleet.run(["check", "--config", config.path, "--client", "web"])
        XCTAssertEqual(web.status, 2, web.stdout)
        XCTAssertTrue(
            web.stdout.contains("api.test:\(api.port)") == false || !web.stdout.contains("api.test:\(api.port) CRITICAL"), web.stdout)
        XCTAssertTrue(web.stdout.contains("cdn.test:\(cdn.port) CRITICAL blocked: web: pinned clients refuse this host now"), web.stdout)

        let lint = try fleet.run(["lint", "--config", config.path])
        XCTAssertTrue(lint.stdout.contains("fingerprints[1] (cdn.test): bad signature: entry ignored"), lint.stdout)
        XCTAssertTrue(lint.stdout.contains("fingerprints[2] (cdn.test): expired"), lint.stdout)

        // The same list under another key: every signature is bad, which is
        // a key that is not the app's, not a list that pins nothing.
        let wrongKey = Data(stranger.uncompressedPoint).base64EncodedString()
        let wrong = try fleet.writeConfig(
            settings: ["clients:", "  - name: web", "    dynamic_list: {file: pins.json, public_key: \"\(wrongKey)\"}"], name: "wrong.yaml")
        let refused = try fleet.run(["check", "--config", wrong.path, "--client", "web"])
        XCTAssertEqual(refused.status, 3, "a configuration error is UNKNOWN: \(refused.stdout)")
        let keyNamed = "no entry's signature verifies with the public key \(EchoedInput.quoted(wrongKey))"
        XCTAssertTrue(refused.stderr.contains(keyNamed), refused.stderr)
        let imported = try fleet.run(["import", "--public-key", wrongKey, fleet.directory.appendingPathComponent("pins.json").path])
        XCTAssertEqual(imported.status, 2, "not an empty stanza with exit 0: \(imported.stdout)")
        XCTAssertTrue(imported.stderr.contains(keyNamed), imported.stderr)
    }

    func testTheClientViewInTheDashboardNamesTheBreakingRelease() throws {
        let config = try writeClients()
        let invocation = [PinwatchBinary.url.path, "watch", "--config", config.path, "--no-bell"].map(TmuxSession.quote).joined(
            separator: " ")
        // The shell stays to print the exit status (see DashboardFleet.watchCommand).
        let command = "bash -c " + TmuxSession.quote(invocation + "; echo EXITED:$?; sleep 30")
        let session = try TmuxSession(command: command, columns: 150, rows: 30, environment: ["SWIFT_BACKTRACE": "interactive=no"])
        defer { session.close() }
        try session.waitForScreen(timeout: 20) { $0.contains("api.test") && $0.contains("LEAF") && !$0.contains("waiting") }
        try session.send("c")
        let view = try session.waitForScreen { $0.contains("clients: what each release sees now") && $0.contains("ios 7.1") }
        let lines = view.split(separator: "\n").map(String.init)
        let ios70 = try XCTUnwrap(lines.first { $0.contains(" ios 7.0 ") })
        XCTAssertTrue(ios70.contains("leaf_only on api.test — breaks at next renewal"), view)
        let android = try XCTUnwrap(lines.first { $0.contains(" android 5.2 ") })
        XCTAssertTrue(android.contains("ok on 2 hosts"), view)
        try session.resize(columns: 100, rows: 24)
        try session.waitForScreen { $0.contains("ios 7.0") && $0.contains("c/Esc back") }
        try session.send("c")
        try session.waitForScreen { !$0.contains("clients: what each release sees now") && $0.contains("c clients") }
        try session.send("q")
        let exited = try session.waitForScreen(timeout: 10) { $0.contains("EXITED:") }
        XCTAssertTrue(exited.contains("EXITED:0"), exited)
    }
}
