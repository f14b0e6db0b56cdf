import Foundation
import PinwatchCore
import PinwatchMonitor
import PinwatchProbe
import PinwatchTestSupport
import XCTest

/// Revocation through the poll pipeline: `openssl s_server` serves leaves
/// of an `openssl ca` CA on 127.0.0.1, their CRL comes from a local HTTP
/// server, and a stapled OCSP response from `-status_file`.
final class RevocationPollTests: XCTestCase {
    private var server: CRLServer!
    private var pki: RevocationPKI!
    private var servers: [ServerProcess] = []

    override func setUpWithError() throws {
        let tools = ["/usr/bin/python3", "/usr/bin/openssl"].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
        try TestEnvironment.require(tools, "python3 and openssl are needed to serve CRLs", skip: { XCTSkip($0) })
        let folder = try RevocationPKI.makeFolder()
        server = try CRLServer(folder: folder)
        pki = try RevocationPKI(folder: folder, crlURL: server.url("ca.crl"))
    }

    override func tearDown() {
        servers.forEach { $0.stop() }
        server?.stop()
        pki = nil
        super.tearDown()
    }

    func testARevokedLeafIsCriticalAndAGoodOneOK() throws {
        try pki.issueLeaf("good")
        try pki.issueLeaf("revoked")
        try pki.revoke("revoked", reason: "keyCompromise")
        try pki.writeCRL("ca.crl")
        let reports = try poll(["good": try serve("good"), "revoked": try serve("revoked")])
        XCTAssertEqual(reports["good"]?.alerts, [])
        XCTAssertEqual(reports["good"]?.severity, .ok)
        let revoked = try XCTUnwrap(reports["revoked"])
        XCTAssertEqual(revoked.alerts, [.revoked])
        XCTAssertEqual(revoked.severity, .critical)
        XCTAssertEqual(revoked.headline, .revoked)
        XCTAssertTrue(revoked.reason.hasPrefix("the leaf certificate was revoked on "), revoked.reason)
        XCTAssertTrue(revoked.reason.contains("(keyCompromise; CRL \(server.url("ca.crl")))"), revoked.reason)
    }

    /// A CRL that cannot be had is a warning, and `revocation: off` looks nothing up.
    func testAnUnavailableCRLWarnsAndRevocationOffLooksNothingUp() throws {
        try pki.issueLeaf("revoked")
        try pki.revoke("revoked")
        let port = try serve("revoked")
        let unavailable = try poll(["revoked": port])["revoked"]
        XCTAssertEqual(unavailable?.alerts, [.crlUnavailable])
        XCTAssertEqual(unavailable?.severity, .warning)
        XCTAssertEqual(
            unavailable?.reason, "revocation of the leaf certificate is unknown: CRL \(server.url("ca.crl")): the server answered HTTP 404")

        try pki.writeCRL("ca.crl")
        XCTAssertEqual(try poll(["revoked": port], revocation: false)["revoked"]?.alerts, [])
        XCTAssertEqual(try poll(["revoked": port])["revoked"]?.alerts, [.revoked])
    }

    func testAStapledOCSPResponseSaysRevokedOrGood() throws {
        try pki.issueLeaf("stapled-good", distributionPoint: false)
        try pki.issueLeaf("stapled-revoked", distributionPoint: false)
        try pki.revoke("stapled-revoked", reason: "superseded")
        let good = try serve("stapled-good", staple: pki.writeOCSPResponse(for: "stapled-good", as: "good.ocsp"))
        let revoked = try serve("stapled-revoked", staple: pki.writeOCSPResponse(for: "stapled-revoked", as: "revoked.ocsp"))
        let reports = try poll(["good": good, "revoked": revoked])
        XCTAssertEqual(reports["good"]?.result.revocation, [RevocationFinding(level: 0, source: .stapledOCSP, outcome: .good)])
        XCTAssertEqual(reports["good"]?.alerts, [])
        let report = try XCTUnwrap(reports["revoked"])
        XCTAssertEqual(report.alerts, [.revoked])
        XCTAssertTrue(report.reason.contains("(superseded; stapled OCSP response)"), report.reason)
    }

    // MARK: Helpers

    /// `openssl s_server` with the leaf (and a stapled response); its port.
    private func serve(_ leaf: String, staple: URL? = nil) throws -> Int {
        let port = try LocalPorts.closedPort()
        var arguments = [
            "/usr/bin/openssl", "s_server", "-accept", "127.0.0.1:\(port)", "-cert", pki.file("\(leaf).pem").path, "-key",
            pki.file("\(leaf).key").path, "-www", "-quiet",
        ]
        if let staple { arguments += ["-status_file", staple.path] }
        let process = try ServerProcess(arguments, output: pki.file("s_server-\(leaf).log").path)
        servers.append(process)
        XCTAssertTrue(process.wait(upTo: 10) { ServerProcess.isListening(port: port) }, "s_server listens on \(port)")
        return port
    }

    private func poll(_ hosts: [String: Int], revocation: Bool = true) throws -> [String: HostReport] {
        var config = Config()
        config.timeout = 3
        config.proxy = .off
        let trust = TrustSource.pem(try String(contentsOf: pki.caCertificate, encoding: .utf8))
        let names = hosts.keys.sorted()
        config.hosts = names.map { name in
            var host = HostConfig(
                host: "\(name).test", port: hosts[name]!, serverName: "localhost", connectAddress: "127.0.0.1", trust: trust)
            host.checksRevocation = revocation
            return host
        }
        config.state = .off
        let poller = HostPoller(config: config, environment: [:], crls: CRLCache())
        return Dictionary(uniqueKeysWithValues: zip(names, poller.runCycle()))
    }
}
