import Foundation
import PinwatchLocalWorld
import PinwatchProbe
import XCTest

/// What a proxy on the way lets pinwatch say (DESIGN §6): a wrong pin seen
/// through an honest CONNECT tunnel is a wrong pin, not an interception;
/// an untrusted chain through an inspecting proxy still is one.
final class ProxyVerdictTests: LocalFleetTestCase {
    func testWrongPinThroughAnHonestProxyIsNotCalledInterception() throws {
        let (server, _) = try fleet.serveLeaf("api.test")
        fleet.add(LocalFleet.Host(name: "api.test", port: server.port, ca: [try LocalFleet.unrelatedPin()]))
        try fleet.writeConfig()
        let proxy = fleet.keep(try ConnectProxyServer())
        let proxyURL = "http://127.0.0.1:\(proxy.port)"

        let snapshot = try fleet.run(["snapshot", "--format", "json"], environment: ["https_proxy": proxyURL])
        let host = try SnapshotJSON.decode(snapshot.stdout).host("api.test")
        XCTAssertEqual(host.severity, "critical")
        XCTAssertTrue(host.alerts.contains("no_match"), "\(host.alerts)")
        XCTAssertTrue(host.alerts.contains("proxy"), "\(host.alerts)")
        XCTAssertFalse(host.alerts.contains("intercepted"), "\(host.alerts)")
        XCTAssertFalse(host.proxy.intercepted)
        XCTAssertEqual(
            host.reason,
            "pinned clients refuse this host now: no configured pin matches the chain "
                + "(seen through proxy \(proxyURL); a direct probe shows whether it is the server's)")
        XCTAssertFalse(host.reason.contains("not reached"), host.reason)
        XCTAssertEqual(proxy.connectTargets, ["127.0.0.1:\(server.port)"], "the probe went through the tunnel")
    }

    func testUntrustedChainThroughAnInspectingProxyIsInterception() throws {
        let api = try fleet.addOK("api.test")
        try fleet.writeConfig()
        let inspectionCA = try CertificateAuthority.makeRoot(commonName: "Inspecting Proxy CA", organization: "Middlebox")
        let forged = try inspectionCA.issueLeaf(commonName: "api.test", dnsNames: ["api.test"])
        let interceptor = fleet.keep(try LocalTLSServer(identity: Identity(leaf: forged)))
        let proxy = fleet.keep(try ConnectProxyServer(interceptionPort: interceptor.port))
        let proxyURL = "http://127.0.0.1:\(proxy.port)"

        let snapshot = try fleet.run(["snapshot", "--format", "json"], environment: ["https_proxy": proxyURL])
        let host = try SnapshotJSON.decode(snapshot.stdout).host("api.test")
        XCTAssertTrue(host.alerts.contains("intercepted"), "\(host.alerts)")
        XCTAssertEqual(
            host.reason,
            "intercepted by proxy \(proxyURL): the chain came from the proxy, not the server, "
                + "and it is not trusted; whether the server was reached is unknown")
        XCTAssertEqual(proxy.connectTargets, ["127.0.0.1:\(api.port)"])
    }
}
