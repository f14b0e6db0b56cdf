import Foundation
import PinwatchCore
import PinwatchLocalWorld
import PinwatchProbe
import PinwatchTestSupport
import XCTest

/// The SCTs a server delivers, collected by the probe and each checked with
/// its log's key: embedded in the leaf (signed over the precertificate),
/// and in the TLS extension (`openssl s_server -serverinfo`).
final class ServedSCTTests: XCTestCase {
    private var servers: [AnyObject] = []
    private var processes: [ServerProcess] = []
    private var folder: URL?

    override func tearDown() {
        processes.forEach { $0.stop() }
        servers.removeAll()
        if let folder { try? FileManager.default.removeItem(at: folder) }
        super.tearDown()
    }

    private struct World {
        var root: CertificateAuthority
        var issuer: CertificateAuthority
        var logA: LocalSCTLog
        var logB: LocalSCTLog
        var keys: SCTLogKeys
    }

    private func world() throws -> World {
        let root = try CertificateAuthority.makeRoot(commonName: "SCT Root")
        let issuer = try root.issueIntermediate(commonName: "SCT Issuing CA")
        let logA = try LocalSCTLog(operatorName: "Operator A")
        let logB = try LocalSCTLog(operatorName: "Operator B")
        return World(root: root, issuer: issuer, logA: logA, logB: logB, keys: SCTLogKeys([logA.sctLogKey, logB.sctLogKey]))
    }

    private func probe(_ leaf: IssuedCertificate, _ world: World, logs: SCTLogKeys?) throws -> ProbeResult {
        let server = try LocalTLSServer(identity: Identity(leaf: leaf, intermediates: [world.issuer.certificate]))
        servers.append(server)
        let result = try probe(port: server.port, address: server.host, world, logs: logs)
        XCTAssertTrue(result.trusted, result.trustError ?? "")
        return result
    }

    /// api.test at `port`, trusting the world's root, checking SCTs against `logs`.
    private func probe(port: Int, address: String = "127.0.0.1", _ world: World, logs: SCTLogKeys?) throws -> ProbeResult {
        var target = ProbeTarget(
            host: "api.test", port: port, serverName: "api.test", connectAddress: address,
            trust: .pem(world.root.certificate.pem), timeout: 5)
        target.sctLogs = logs
        let result = try XCTUnwrap(ProbeEngine(concurrency: 1).run([target]).first)
        XCTAssertNil(result.failure)
        return result
    }

    func testEmbeddedSCTsAreCheckedAndAForgedOneIsNot() throws {
        let world = try world()
        let plain = try world.issuer.issueLeaf(commonName: "api.test", dnsNames: ["api.test"])
        let forger = try LocalSCTLog.forger(of: world.logA)
        let stranger = try LocalSCTLog(operatorName: "Operator C")
        let leaf = try world.issuer.embeddingSCTs(in: plain, by: [world.logA, world.logB, forger, stranger])
        let scts = try XCTUnwrap(try probe(leaf, world, logs: world.keys).scts)
        XCTAssertEqual(scts.map(\.delivery), [.embedded, .embedded, .embedded, .embedded])
        XCTAssertEqual(tally(scts), ["valid Operator A": 1, "valid Operator B": 1, "badSignature Operator A": 1, "unknownLog -": 1])
        let compliance = CTCompliance.judge(scts, leaf: leaf.certificate.facts)
        XCTAssertTrue(compliance.compliant, compliance.sentence)

        // The forger's SCT does not stand in for the second operator's.
        let forged = try world.issuer.embeddingSCTs(in: plain, by: [world.logA, forger])
        let forgedSCTs = try XCTUnwrap(try probe(forged, world, logs: world.keys).scts)
        XCTAssertEqual(tally(forgedSCTs), ["valid Operator A": 1, "badSignature Operator A": 1])
        let refused = CTCompliance.judge(forgedSCTs, leaf: forged.certificate.facts)
        XCTAssertFalse(refused.compliant)
        XCTAssertTrue(refused.sentence.contains("1 SCT not signed by its log's key"), refused.sentence)
    }

    func testALeafWithoutSCTsHasNoneAndNoLogsCollectNothing() throws {
        let world = try world()
        let leaf = try world.issuer.issueLeaf(commonName: "api.test", dnsNames: ["api.test"])
        let scts = try XCTUnwrap(try probe(leaf, world, logs: world.keys).scts)
        XCTAssertEqual(scts, [])
        let compliance = CTCompliance.judge(scts, leaf: leaf.certificate.facts)
        XCTAssertFalse(compliance.compliant)
        XCTAssertTrue(compliance.sentence.hasPrefix("the leaf came with no SCT"), compliance.sentence)

        let embedded = try world.issuer.embeddingSCTs(in: leaf, by: [world.logA, world.logB])
        XCTAssertNil(try probe(embedded, world, logs: nil).scts, "without logs the probe collects nothing")
    }

    /// TLS 1.2: s_server's `SERVERINFO FOR` blocks are for TLS 1.2 handshakes.
    func testSCTsInTheTLSExtensionAreCheckedAgainstTheLeaf() throws {
        try TestEnvironment.require(
            FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl"), "openssl is needed for s_server",
            skip: { XCTSkip($0) })
        let world = try world()
        let leaf = try world.issuer.issueLeaf(commonName: "api.test", dnsNames: ["api.test"])
        let other = try world.issuer.issueLeaf(commonName: "other.test", dnsNames: ["other.test"])
        let forger = try LocalSCTLog.forger(of: world.logB)
        let scts = [
            try world.logA.sct(for: leaf.certificate), try world.logB.sct(for: leaf.certificate),
            try forger.sct(for: leaf.certificate), try world.logB.sct(for: other.certificate),
        ]
        let port = try serveWithOpenSSL(
            leaf, world, files: ["sct.pem": Array(LocalSCTLog.serverInfoPEM(scts).utf8)], options: ["-serverinfo", "sct.pem", "-tls1_2"])
        let seen = try XCTUnwrap(try probe(port: port, world, logs: world.keys).scts)
        XCTAssertEqual(seen.map(\.delivery), Array(repeating: .tlsExtension, count: 4))
        XCTAssertEqual(
            tally(seen), ["valid Operator A": 1, "valid Operator B": 1, "badSignature Operator B": 2],
            "a forger's and another leaf's SCT fail")
        let compliance = CTCompliance.judge(seen, leaf: leaf.certificate.facts)
        XCTAssertTrue(compliance.compliant, compliance.sentence)
    }

    /// The stapled OCSP response's SCTs, over the leaf as in the TLS extension.
    func testSCTsInAStapledOCSPResponseAreChecked() throws {
        try TestEnvironment.require(
            FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl"), "openssl is needed for s_server",
            skip: { XCTSkip($0) })
        let world = try world()
        let leaf = try world.issuer.issueLeaf(commonName: "api.test", dnsNames: ["api.test"])
        let forger = try LocalSCTLog.forger(of: world.logA)
        let response = try world.issuer.stapledOCSPResponse(
            for: leaf.certificate, carrying: [try world.logA.sct(for: leaf.certificate), try forger.sct(for: leaf.certificate)])
        let port = try serveWithOpenSSL(leaf, world, files: ["staple.der": response], options: ["-status_file", "staple.der"])
        let result = try probe(port: port, world, logs: world.keys)
        XCTAssertEqual(
            result.revocation, [RevocationFinding(level: 0, source: .stapledOCSP, outcome: .good)], "the response's own signature verifies")
        let seen = try XCTUnwrap(result.scts)
        XCTAssertEqual(seen.map(\.delivery), [.ocsp, .ocsp])
        XCTAssertEqual(tally(seen), ["valid Operator A": 1, "badSignature Operator A": 1])
        let compliance = CTCompliance.judge(seen, leaf: leaf.certificate.facts)
        XCTAssertFalse(compliance.compliant, "one valid SCT from one operator is not enough")
    }

    /// Each SCT's check and log operator, counted: OpenSSL hands them over
    /// in an order of its own.
    private func tally(_ scts: [ObservedSCT]) -> [String: Int] {
        scts.reduce(into: [:]) { counts, sct in counts["\(sct.check) \(sct.logOperator ?? "-")", default: 0] += 1 }
    }

    /// `files` are written beside the leaf; `options` name them without a folder.
    private func serveWithOpenSSL(_ leaf: IssuedCertificate, _ world: World, files extra: [String: [UInt8]], options: [String]) throws
        -> Int
    {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pinwatch-sct-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        self.folder = folder
        let files = ["leaf.pem": leaf.certificate.pem, "leaf.key": try leaf.key.pem, "chain.pem": world.issuer.certificate.pem]
        for (name, text) in files { try text.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        for (name, bytes) in extra { try Data(bytes).write(to: folder.appendingPathComponent(name)) }
        let port = try LocalPorts.closedPort()
        let path = { (name: String) in folder.appendingPathComponent(name).path }
        let process = try ServerProcess(
            [
                "/usr/bin/openssl", "s_server", "-accept", "127.0.0.1:\(port)", "-cert", path("leaf.pem"), "-key", path("leaf.key"),
                "-cert_chain", path("chain.pem"), "-www", "-quiet",
            ] + options.map { extra[$0] == nil ? $0 : path($0) }, output: path("s_server.log"))
        processes.append(process)
        XCTAssertTrue(process.wait(upTo: 10) { ServerProcess.isListening(port: port) }, "s_server listens on \(port)")
        return port
    }
}
