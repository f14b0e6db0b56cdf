import Foundation
import PinwatchLocalWorld
import PinwatchProbe
import XCTest

/// DESIGN §5's severity on the real binary: no host reads "fine" while it is not.
final class SeverityEndToEndTests: LocalFleetTestCase {

    /// A TLS-inspecting proxy: every CONNECT ends at a server whose chain
    /// the proxy's own CA signed. Nagios pages with the first line only,
    /// so that line must name the interception, not a trust error.
    func testInterceptionIsNamedOnTheCheckFirstLine() throws {
        let api = try fleet.addOK("api.test")
        try fleet.writeConfig()
        let inspectionCA = try CertificateAuthority.makeRoot(commonName: "Inspecting Proxy CA", organization: "Middlebox")
        let forged = try inspectionCA.issueLeaf(commonName: "api.test", dnsNames: ["api.test"])
        let interceptor = fleet.keep(try LocalTLSServer(identity: Identity(leaf: forged)))
        let proxy = fleet.keep(try ConnectProxyServer(interceptionPort: interceptor.port))
        let proxyURL = "http://127.0.0.1:\(proxy.port)"
        let environment = ["https_proxy": proxyURL]

        let check = try fleet.run(["check"], environment: environment)
        XCTAssertEqual(check.status, 2, check.stdout)
        let first = String(check.stdout.split(separator: "\n").first ?? "")
        XCTAssertTrue(
            first.hasPrefix("PINWATCH CRITICAL - api.test:\(api.port) intercepted by proxy \(proxyURL)"), first)
        XCTAssertFalse(first.contains("unable to verify"), "the trust error is not what pages: \(first)")

        let snapshot = try fleet.run(["snapshot", "--format", "json"], environment: environment)
        let host = try SnapshotJSON.decode(snapshot.stdout).host("api.test")
        XCTAssertEqual(host.severity, "critical")
        XCTAssertTrue(host.alerts.contains("intercepted"), "\(host.alerts)")
        XCTAssertTrue(host.reason.hasPrefix("intercepted by proxy \(proxyURL)"), host.reason)
        XCTAssertEqual(proxy.connectTargets, ["127.0.0.1:\(api.port)", "127.0.0.1:\(api.port)"], "connect: is the CONNECT target")
    }

    /// DESIGN §5 (an intercepted host has no days): through an intercepting proxy the forged leaf's
    /// dates are not the server's. Its 5 days must not become the host's
    /// days, perfdata or expiry metrics, and the reason says where the
    /// chain came from.
    func testInterceptedHostReportsNoDaysOfTheForgedLeaf() throws {
        let api = try fleet.addOK("api.test")
        try fleet.writeConfig()
        let inspectionCA = try CertificateAuthority.makeRoot(commonName: "Inspecting Proxy CA", organization: "Middlebox")
        let forged = try inspectionCA.issueLeaf(commonName: "api.test", dnsNames: ["api.test"], validity: .lasting(days: 5.5))
        let interceptor = fleet.keep(try LocalTLSServer(identity: Identity(leaf: forged)))
        let proxy = fleet.keep(try ConnectProxyServer(interceptionPort: interceptor.port))
        let environment = ["https_proxy": "http://127.0.0.1:\(proxy.port)"]

        let check = try fleet.run(["check"], environment: environment)
        XCTAssertEqual(check.status, 2, check.stdout)
        XCTAssertFalse(check.stdout.contains("_days'="), "no perfdata for the forged leaf: \(check.stdout)")
        XCTAssertFalse(check.stdout.contains("days left"), check.stdout)
        XCTAssertTrue(check.stdout.contains("the chain came from the proxy, not the server"), check.stdout)
        XCTAssertTrue(check.stdout.contains("whether the server was reached is unknown"), check.stdout)

        let snapshot = try fleet.run(["snapshot", "--format", "json"], environment: environment)
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(snapshot.stdout.utf8)) as? [String: Any])
        let host = try XCTUnwrap((document["hosts"] as? [[String: Any]])?.first)
        for key in ["leaf_days_left", "leaf_not_after", "days_left", "earliest_not_after", "earliest_level"] {
            XCTAssertTrue(host[key] is NSNull, "\(key): \(String(describing: host[key]))")
        }
        let alerts = try XCTUnwrap(host["alerts"] as? [String])
        XCTAssertFalse(alerts.contains("critical_expiry"), "\(alerts)")
        XCTAssertFalse((host["chain"] as? [Any] ?? []).isEmpty, "the presented chain is still shown")

        let metrics = try fleet.run(["snapshot", "--format", "prometheus"], environment: environment)
        XCTAssertTrue(
            metrics.stdout.contains(
                "pinwatch_host_alert{host=\"api.test\",port=\"\(api.port)\",address=\"127.0.0.1\",alert=\"intercepted\"} 1"),
            metrics.stdout)
        XCTAssertFalse(metrics.stdout.contains("pinwatch_leaf_not_after_timestamp_seconds{"), metrics.stdout)
        XCTAssertFalse(metrics.stdout.contains("pinwatch_chain_not_after_timestamp_seconds{"), metrics.stdout)
    }

    func testEmptyConfigurationIsUnknownNotOK() throws {
        for (name, text) in [("empty.yaml", ""), ("none.yaml", "hosts: []\n")] {
            try fleet.write(text, to: name)
            let check = try fleet.run(["check", "--config", name])
            XCTAssertEqual(check.status, 3, "\(name): \(check.stdout)")
            XCTAssertEqual(check.stdout, "PINWATCH UNKNOWN - no hosts configured\n")
        }
    }

    /// mail.demo's case: an `ok` host whose leaf expires in 4 days is
    /// critical everywhere, not "✓ ok" on one screen and CRITICAL in another.
    func testCriticalExpiryOnAnOkHostIsCriticalEverywhere() throws {
        let mail = try fleet.addExpiring("mail.test", daysLeft: 4.5)
        try fleet.addOK("fine.test")
        try fleet.writeConfig()

        let text = try fleet.run(["snapshot", "--format", "text", "--width", "140"])
        let lines = text.stdout.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines[0].contains("1 critical"), lines[0])
        XCTAssertTrue(
            lines.contains { $0.contains("✗ EXPIRING mail.test:\(mail.port): the leaf certificate expires in 4 days") }, text.stdout)
        let row = try XCTUnwrap(lines.first { $0.contains("mail.test:\(mail.port)") && !$0.contains("EXPIRING mail") })
        XCTAssertTrue(row.contains("✗ expiring"), row)
        XCTAssertFalse(row.contains("✓ ok"), row)

        let json = try SnapshotJSON.decode(try fleet.run(["snapshot", "--format", "json"]).stdout)
        XCTAssertEqual(try json.host("mail.test").status, "ok", "the status stays what DESIGN §5 says")
        XCTAssertEqual(try json.host("mail.test").severity, "critical")
        XCTAssertEqual(json.summary.severity["critical"], 1)

        let check = try fleet.run(["check"])
        XCTAssertEqual(check.status, 2)
        XCTAssertTrue(
            check.stdout.hasPrefix("PINWATCH CRITICAL - mail.test:\(mail.port) the leaf certificate expires in 4 days"), check.stdout)
        XCTAssertTrue(check.stdout.contains("'mail.test:\(mail.port)_days'=4;21:;7:"), check.stdout)
    }

    /// A private CA's chain checked against the system store: the last
    /// certificate sent is an intermediate, and stays one.
    func testUntrustedPrivateChainHasNoRootLevel() throws {
        let (server, _) = try fleet.serveLeaf("private.test")
        let config = """
            trust: system
            hosts:
              - host: private.test
                port: \(server.port)
                connect: 127.0.0.1
                pins:
                  ca: [\(LocalFleet.pin(fleet.root.certificate))]

            """
        try fleet.write(config, to: "system.yaml")
        let json = try SnapshotJSON.decode(try fleet.run(["snapshot", "--format", "json", "--config", "system.yaml"]).stdout)
        let host = try json.host("private.test")
        XCTAssertFalse(host.trusted)
        XCTAssertEqual(host.chain.map(\.role), ["leaf", "intermediate"])

        let inspect = try fleet.run(["inspect", "private.test:\(server.port)", "--connect", "127.0.0.1", "--format", "json"])
        XCTAssertTrue(inspect.stdout.contains("\"role\": \"intermediate\""), inspect.stdout)
        XCTAssertFalse(inspect.stdout.contains("\"role\": \"root\""), inspect.stdout)

        let text = try fleet.run(["snapshot", "--format", "text", "--config", "system.yaml", "--width", "140"])
        let row = try XCTUnwrap(
            text.stdout.split(separator: "\n").first { $0.contains("private.test") && $0.contains("blocked") && !$0.contains("BLOCKED") })
        XCTAssertTrue(row.contains("L· I✗"), String(row))
        XCTAssertFalse(row.contains("R"), "no root cell for a chain that stops before a root: \(row)")
    }
}
