import Foundation
import PinwatchCore
import PinwatchLocalWorld
import PinwatchProbe
import PinwatchTestSupport
import XCTest

/// Android's Certificate Transparency requirement through the binary: a
/// release that targets API 37 (`ct_required: true`), or whose network
/// security config turns it on, refuses a leaf without SCTs from two log
/// operators that the logs of `ct: logs:` signed, whatever its pins say.
///
/// Three leaves of the fleet's issuing CA, each pinned by the root: one
/// with no SCT, one with SCTs by two operators' logs embedded, one whose
/// second SCT a forger signed under the second log's id.
final class ClientCertificateTransparencyTests: LocalFleetTestCase {
    private var none: LocalFleet.Host!
    private var logged: LocalFleet.Host!
    private var forged: LocalFleet.Host!

    override func setUpWithError() throws {
        try super.setUpWithError()
        let logA = try LocalSCTLog(operatorName: "Operator A")
        let logB = try LocalSCTLog(operatorName: "Operator B")
        try fleet.write(try LocalSCTLog.logList([logA, logB]), to: "logs.json")
        none = try serve("none.test", by: [])
        logged = try serve("logged.test", by: [logA, logB])
        forged = try serve("forged.test", by: [logA, try LocalSCTLog.forger(of: logB)])
    }

    private func serve(_ name: String, by logs: [LocalSCTLog]) throws -> LocalFleet.Host {
        var leaf = try fleet.issuing.issueLeaf(commonName: name, dnsNames: [name])
        if !logs.isEmpty { leaf = try fleet.issuing.embeddingSCTs(in: leaf, by: logs) }
        let server = try fleet.keep(LocalTLSServer(identity: Identity(leaf: leaf, intermediates: [fleet.issuing.certificate])))
        return fleet.add(LocalFleet.Host(name: name, port: server.port, leafCertificate: leaf.certificate))
    }

    private func writeConfig(ctRequired: Bool, element: String = "", logs: Bool = true) throws -> URL {
        let root = String(LocalFleet.pin(fleet.root.certificate).dropFirst("sha256/".count))
        let domains = ["none.test", "logged.test", "forged.test"].map { "<domain>\($0)</domain>" }.joined()
        try fleet.write(
            """
            <?xml version="1.0" encoding="utf-8"?>
            <network-security-config>
              <base-config>\(element)</base-config>
              <domain-config>\(domains)
                <pin-set><pin digest="SHA-256">\(root)</pin></pin-set>
              </domain-config>
            </network-security-config>
            """, to: "network_security_config.xml")
        return try fleet.writeConfig(
            settings: (logs ? ["ct: {logs: logs.json}"] : []) + [
                "clients:", "  - name: android 9", "    nsc: network_security_config.xml", "    ct_required: \(ctRequired)",
            ])
    }

    func testAReleaseTargetingAPI37RefusesALeafWithoutValidSCTs() throws {
        let config = try writeConfig(ctRequired: true)
        let outcome = try fleet.run(["check", "--config", config.path, "--client", "android 9"])
        XCTAssertEqual(outcome.status, 2, "\(outcome.stdout)\(outcome.stderr)")
        XCTAssertTrue(
            outcome.stdout.contains(
                "none.test:\(none.port) CRITICAL ct_noncompliant: android 9: pinned clients refuse this host now: "
                    + "it requires Certificate Transparency and the leaf falls short: the leaf came with no SCT"), outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("forged.test:\(forged.port) CRITICAL ct_noncompliant"), outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("1 SCT not signed by its log's key"), "the forged SCT is not counted: \(outcome.stdout)")
        XCTAssertFalse(outcome.stdout.contains("logged.test:\(logged.port) CRITICAL"), outcome.stdout)

        let lint = try fleet.run(["lint", "--config", config.path])
        XCTAssertTrue(
            lint.stdout.contains(
                "error: android 9: none.test: this release requires Certificate Transparency and refuses the host now: "
                    + "Certificate Transparency: the leaf came with no SCT"), lint.stdout)
        XCTAssertFalse(lint.stdout.contains("logged.test: this release requires"), lint.stdout)

        let snapshot = try fleet.run(["snapshot", "--config", config.path, "--format", "json"])
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(snapshot.stdout.utf8)) as? [String: Any])
        let hosts = try XCTUnwrap(document["hosts"] as? [[String: Any]])
        let byName = Dictionary(uniqueKeysWithValues: hosts.map { ($0["host"] as! String, $0) })
        XCTAssertEqual(byName["logged.test"]?["status"] as? String, "ok")
        XCTAssertEqual(byName["none.test"]?["status"] as? String, "blocked")
        XCTAssertEqual(byName["none.test"]?["headline"] as? String, "ct_noncompliant")
        XCTAssertEqual(byName["forged.test"]?["alerts"] as? [String], ["ct_noncompliant"])
        let client = try XCTUnwrap((byName["logged.test"]?["clients"] as? [[String: Any]])?.first)
        XCTAssertEqual(
            client["certificate_transparency"] as? String,
            "Certificate Transparency: 2 valid embedded SCTs and 0 valid SCTs delivered in the handshake, from 2 log operators")
        let file = try fleet.write(snapshot.stdout, to: "ct.json")
        let schema = try SnapshotSchema.validate(file.path)
        XCTAssertEqual(schema.status, 0, "ct_noncompliant is in the schema: \(schema.stderr)")
    }

    func testTheElementOverridesTheReleaseAndNoLogListIsSaid() throws {
        let off = try writeConfig(ctRequired: true, element: #"<certificateTransparency enabled="false"/>"#)
        let allowed = try fleet.run(["check", "--config", off.path, "--client", "android 9"])
        XCTAssertEqual(allowed.status, 0, "enabled=false beats ct_required: \(allowed.stdout)\(allowed.stderr)")

        let on = try writeConfig(ctRequired: false, element: #"<certificateTransparency enabled="true"/>"#)
        let refused = try fleet.run(["check", "--config", on.path, "--client", "android 9"])
        XCTAssertEqual(refused.status, 2, "\(refused.stdout)\(refused.stderr)")
        XCTAssertTrue(refused.stdout.contains("none.test:\(none.port) CRITICAL ct_noncompliant"), refused.stdout)

        let unchecked = try writeConfig(ctRequired: true, logs: false)
        let outcome = try fleet.run(["check", "--config", unchecked.path, "--client", "android 9"])
        XCTAssertTrue(
            outcome.stderr.contains("client \"android 9\" requires Certificate Transparency, but there is no ct: logs: to check SCTs with"),
            outcome.stderr)
        XCTAssertFalse(outcome.stdout.contains("ct_noncompliant"), "nothing was counted, so nothing is called non-compliant")
        let lint = try fleet.run(["lint", "--config", unchecked.path])
        XCTAssertTrue(
            lint.stdout.contains(
                "warning: android 9: none.test: requires Certificate Transparency; SCTs not checked (a probe checks them with the keys of ct: logs:)"
            ),
            lint.stdout)
        let snapshot = try fleet.run(["snapshot", "--config", unchecked.path, "--format", "json"])
        XCTAssertTrue(
            snapshot.stdout.contains(
                #""certificate_transparency": "requires Certificate Transparency; SCTs not checked (a probe checks them with the keys of ct: logs:)""#
            ),
            snapshot.stdout)
    }
}
