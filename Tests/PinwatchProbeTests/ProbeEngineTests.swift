import Foundation
import PinwatchCore
import PinwatchLocalWorld
import PinwatchProbe
import PinwatchTestSupport
import XCTest

final class ProbeEngineTests: XCTestCase {
    private let engine = ProbeEngine(concurrency: 8)
    /// Servers live until the test ends: the optimiser may otherwise end
    /// a local's lifetime right after its last use, before the probe runs.
    private var servers: [AnyObject] = []

    override func tearDown() {
        servers.removeAll()
    }

    private func keep<Server: AnyObject>(_ server: Server) -> Server {
        servers.append(server)
        return server
    }

    private func probe(_ target: ProbeTarget) -> ProbeResult {
        let results = engine.run([target])
        XCTAssertEqual(results.count, 1)
        return results[0]
    }

    // MARK: Chains

    func testTrustedChainTakesTheRootFromTheTrustStore() throws {
        let pki = try TestPKI()
        let server = keep(try LocalTLSServer(identity: try pki.identity()))
        let result = probe(.local(server, trust: pki.trust))

        XCTAssertNil(result.failure)
        XCTAssertTrue(result.trusted, result.trustError ?? "")
        XCTAssertNil(result.trustError)
        XCTAssertEqual(result.sentCount, 2)
        XCTAssertEqual(
            result.chain.map(\.facts.subject),
            [
                "CN=api.test", "CN=Pinwatch Test Issuing CA 1,O=Pinwatch Tests", "CN=Pinwatch Test Root R1,O=Pinwatch Tests",
            ])
        XCTAssertEqual(result.chain.map(\.fromServer), [true, true, false])
        XCTAssertEqual(result.chain.last?.facts.certSHA256, pki.root.certificate.facts.certSHA256)
        XCTAssertEqual(result.chain[0].facts.keyDescription, "ECDSA P-256")
        XCTAssertEqual(result.chain[0].facts.subjectAltNames, ["api.test", "127.0.0.1"])
        XCTAssertEqual(result.address, "127.0.0.1")
        XCTAssertNil(result.proxy)
        XCTAssertGreaterThan(result.elapsed, 0)
    }

    func testRSALeafIsDescribedAndTrusted() throws {
        let pki = try TestPKI()
        let server = keep(try LocalTLSServer(identity: try pki.identity(key: try PrivateKey.rsa(bits: 2048))))
        let result = probe(.local(server, trust: pki.trust))
        XCTAssertNil(result.failure)
        XCTAssertTrue(result.trusted, result.trustError ?? "")
        XCTAssertEqual(result.chain.first?.facts.keyDescription, "RSA 2048")
    }

    func testECDSAP384LeafIsDescribed() throws {
        let pki = try TestPKI()
        let server = keep(try LocalTLSServer(identity: try pki.identity(key: try PrivateKey.ecdsa(.p384))))
        let result = probe(.local(server, trust: pki.trust))
        XCTAssertTrue(result.trusted, result.trustError ?? "")
        XCTAssertEqual(result.chain.first?.facts.keyDescription, "ECDSA P-384")
    }

    func testWrongHostnameIsUntrustedButTheChainIsCollected() throws {
        let pki = try TestPKI()
        let server = keep(try LocalTLSServer(identity: try pki.identity()))
        let result = probe(.local(server, trust: pki.trust, serverName: "other.test"))
        XCTAssertNil(result.failure)
        XCTAssertFalse(result.trusted)
        XCTAssertEqual(result.trustError, "hostname mismatch")
        XCTAssertEqual(result.chain.count, 3)
    }

    func testIPLiteralServerNameIsCheckedAgainstIPAddresses() throws {
        let pki = try TestPKI()
        let server = keep(try LocalTLSServer(identity: try pki.identity()))
        let result = probe(ProbeTarget(host: "127.0.0.1", port: server.port, serverName: "127.0.0.1", trust: pki.trust))
        XCTAssertTrue(result.trusted, result.trustError ?? "")
    }

    func testUnknownRootIsUntrusted() throws {
        let pki = try TestPKI()
        let stranger = try TestPKI(name: "Some Other")
        let server = keep(try LocalTLSServer(identity: try pki.identity()))
        let result = probe(.local(server, trust: stranger.trust))
        XCTAssertNil(result.failure)
        XCTAssertFalse(result.trusted)
        XCTAssertNotNil(result.trustError)
        XCTAssertEqual(result.chain.first?.facts.subject, "CN=api.test")
        XCTAssertEqual(result.chain.map(\.fromServer), [true, true])
    }

    func testExpiredLeafIsUntrustedWithItsChain() throws {
        let pki = try TestPKI()
        let expired = ValidityWindow(notBefore: Date().addingTimeInterval(-90 * 86_400), notAfter: Date().addingTimeInterval(-86_400))
        let server = keep(try LocalTLSServer(identity: try pki.identity(validity: expired)))
        let result = probe(.local(server, trust: pki.trust))
        XCTAssertFalse(result.trusted)
        XCTAssertEqual(result.trustError, "certificate has expired")
        XCTAssertEqual(result.chain.count, 3)
        XCTAssertLessThan(try XCTUnwrap(result.chain.first?.facts.notAfter), Date())
    }

    func testSelfSignedLeafIsASingleLevel() throws {
        let leaf = try SelfSignedLeaf.make(commonName: "api.test", dnsNames: ["api.test"])
        let server = keep(try LocalTLSServer(identity: Identity(leaf: leaf)))
        let result = probe(.local(server, trust: try TestPKI().trust))
        XCTAssertFalse(result.trusted)
        XCTAssertEqual(result.chain.count, 1)
        XCTAssertEqual(result.chain.first?.facts.isSelfSigned, true)
        XCTAssertEqual(result.sentCount, 1)

        let trustingIt = probe(.local(server, trust: .pem(leaf.certificate.pem)))
        XCTAssertTrue(trustingIt.trusted, trustingIt.trustError ?? "")
        XCTAssertEqual(trustingIt.chain.count, 1)
    }

    func testCrossSignedChainReachesWhicheverRootIsTrusted() throws {
        let oldRoot = try CertificateAuthority.makeRoot(commonName: "Old Root")
        let newRoot = try CertificateAuthority.makeRoot(commonName: "New Root")
        let newRootCrossSigned = try oldRoot.crossSign(newRoot.certificate)
        let intermediate = try newRoot.issueIntermediate(commonName: "Issuing CA")
        let leaf = try intermediate.issueLeaf(commonName: "api.test", dnsNames: ["api.test"])
        let server = keep(
            try LocalTLSServer(identity: Identity(leaf: leaf, intermediates: [intermediate.certificate, newRootCrossSigned])))

        let viaOld = probe(.local(server, trust: .pem(oldRoot.certificate.pem)))
        XCTAssertTrue(viaOld.trusted, viaOld.trustError ?? "")
        XCTAssertEqual(viaOld.chain.map(\.facts.subject), ["CN=api.test", "CN=Issuing CA", "CN=New Root", "CN=Old Root"])
        XCTAssertEqual(viaOld.chain.map(\.fromServer), [true, true, true, false])

        let viaNew = probe(.local(server, trust: .pem(newRoot.certificate.pem)))
        XCTAssertTrue(viaNew.trusted, viaNew.trustError ?? "")
        XCTAssertEqual(viaNew.chain.map(\.facts.subject), ["CN=api.test", "CN=Issuing CA", "CN=New Root"])
        XCTAssertEqual(viaNew.chain.last?.facts.certSHA256, newRoot.certificate.facts.certSHA256)
        XCTAssertEqual(viaNew.chain.last?.fromServer, false)
        XCTAssertEqual(viaNew.sentCount, 3)
    }

    // MARK: Failures

    func testClosedPortIsRefused() throws {
        let port = try LocalPorts.closedPort()
        let result = probe(ProbeTarget(host: "127.0.0.1", port: port, serverName: "api.test"))
        XCTAssertEqual(result.failure?.kind, .refused)
        XCTAssertEqual(result.address, "127.0.0.1")
        XCTAssertTrue(result.chain.isEmpty)
    }

    func testUnresolvableNameIsADNSError() {
        let result = probe(ProbeTarget(host: "nonexistent.invalid", port: 443, serverName: "nonexistent.invalid", timeout: 10))
        XCTAssertEqual(result.failure?.kind, .dns)
        XCTAssertTrue(result.failure?.message.contains("nonexistent.invalid") ?? false, result.failure?.message ?? "")
        XCTAssertNil(result.address)
    }

    func testLocalhostNameIsResolvedAndProbed() throws {
        let pki = try TestPKI()
        let server = keep(try LocalTLSServer(identity: try pki.identity()))
        let result = probe(ProbeTarget(host: "localhost", port: server.port, serverName: "api.test", trust: pki.trust))
        XCTAssertNil(result.failure)
        XCTAssertTrue(result.trusted, result.trustError ?? "")
        XCTAssertEqual(result.address, "127.0.0.1")
    }

    func testHundredCertificateChainIsATLSErrorNotAHang() throws {
        let pki = try TestPKI()
        let sharedKey = try PrivateKey.ecdsa(.p256)
        var intermediates: [X509Certificate] = []
        var issuer = pki.intermediate
        for level in 0..<99 {
            issuer = try issuer.issueIntermediate(commonName: "Deep \(level)", key: sharedKey, pathLength: nil)
            intermediates.insert(issuer.certificate, at: 0)
        }
        let leaf = try issuer.issueLeaf(commonName: "api.test", dnsNames: ["api.test"])
        let server = keep(try LocalTLSServer(identity: Identity(leaf: leaf, intermediates: intermediates)))
        let result = probe(.local(server, trust: pki.trust))
        XCTAssertEqual(result.failure?.kind, .tls, "\(String(describing: result.failure))")
        XCTAssertTrue(result.chain.isEmpty)
    }

    func testMegabyteCertificateIsATLSErrorNotAHang() throws {
        let pki = try TestPKI()
        let server = keep(try LocalTLSServer(identity: try pki.identity(paddingBytes: 1_000_000)))
        let result = probe(.local(server, trust: pki.trust))
        XCTAssertEqual(result.failure?.kind, .tls, "\(String(describing: result.failure))")
        XCTAssertTrue(result.chain.isEmpty)
    }

    func testTrustBundleFileIsUsed() throws {
        let pki = try TestPKI()
        let server = keep(try LocalTLSServer(identity: try pki.identity()))
        let folder = try TemporaryFolder()
        let bundle = folder.path("roots.pem")
        try Data((try TestPKI(name: "Unrelated").root.certificate.pem + pki.root.certificate.pem).utf8)
            .write(to: URL(fileURLWithPath: bundle))
        let result = probe(.local(server, trust: .bundle(bundle)))
        XCTAssertTrue(result.trusted, "\(String(describing: result.failure)) \(result.trustError ?? "")")
        XCTAssertEqual(result.chain.count, 3)
    }

    func testSystemTrustStoreDoesNotKnowTheLocalRoot() throws {
        let pki = try TestPKI()
        let server = keep(try LocalTLSServer(identity: try pki.identity()))
        let result = probe(.local(server, trust: .system))
        XCTAssertNil(result.failure)
        XCTAssertFalse(result.trusted)
        XCTAssertEqual(result.trustError, "unable to get local issuer certificate")
        XCTAssertEqual(result.chain.map(\.fromServer), [true, true])
    }

    func testMissingTrustBundleIsReported() throws {
        let pki = try TestPKI()
        let server = keep(try LocalTLSServer(identity: try pki.identity()))
        let result = probe(.local(server, trust: .bundle("/nonexistent/bundle.pem")))
        XCTAssertEqual(result.failure?.kind, .tls)
        XCTAssertTrue(result.failure?.message.contains("/nonexistent/bundle.pem") ?? false)
    }

    func testBlackHoleCostsExactlyItsDeadline() throws {
        let blackHole = keep(try BlackHoleServer())
        let result = probe(ProbeTarget(host: "127.0.0.1", port: blackHole.port, serverName: "api.test", timeout: 1))
        XCTAssertEqual(result.failure?.kind, .timeout)
        XCTAssertEqual(result.failure?.message, "timed out after 1 s during the TLS handshake")
        // The deadline is the only way out of a silent handshake.
        XCTAssertGreaterThanOrEqual(result.elapsed, 1)
        XCTAssertEqual(result.address, "127.0.0.1")
    }

    func testPlaintextServerIsATLSError() throws {
        let plaintext = keep(try PlaintextServer())
        let result = probe(ProbeTarget(host: "127.0.0.1", port: plaintext.port, serverName: "api.test"))
        XCTAssertEqual(result.failure?.kind, .tls)
        XCTAssertEqual(result.failure?.message, "not a TLS server (got plaintext)")
    }

    // MARK: Proxies

    func testConnectProxyCarriesTheProbe() throws {
        let pki = try TestPKI()
        let server = keep(try LocalTLSServer(identity: try pki.identity()))
        let proxy = keep(try ConnectProxyServer(hostOverrides: ["api.test": "127.0.0.1"]))
        let route = ProxyRoute(scheme: .http, host: proxy.host, port: proxy.port, source: "https_proxy")
        let result = probe(ProbeTarget(host: "api.test", port: server.port, serverName: "api.test", trust: pki.trust, proxy: route))

        XCTAssertNil(result.failure)
        XCTAssertTrue(result.trusted, result.trustError ?? "")
        XCTAssertEqual(result.chain.count, 3)
        XCTAssertEqual(result.proxy, route)
        XCTAssertEqual(result.address, "127.0.0.1", "the proxy's IP; its port is in the proxy URL")
        XCTAssertEqual(proxy.connectTargets, ["api.test:\(server.port)"])
        XCTAssertNil(proxy.requests.first?.proxyAuthorization)
    }

    func testConnectProxyTargetsTheConnectAddressAndSendsCredentials() throws {
        let pki = try TestPKI()
        let server = keep(try LocalTLSServer(identity: try pki.identity()))
        let proxy = keep(try ConnectProxyServer())
        let route = ProxyRoute(scheme: .http, host: proxy.host, port: proxy.port, username: "ops", password: "s3cret", source: "config")
        let result = probe(
            ProbeTarget(
                host: "api.test", port: server.port, serverName: "api.test", connectAddress: "127.0.0.1",
                trust: pki.trust, proxy: route))
        XCTAssertTrue(result.trusted, "\(String(describing: result.failure)) \(result.trustError ?? "")")
        XCTAssertEqual(proxy.connectTargets, ["127.0.0.1:\(server.port)"])
        XCTAssertEqual(proxy.requests.first?.proxyAuthorization, "Basic " + Data("ops:s3cret".utf8).base64EncodedString())
    }

    func testRefusingProxyIsAProxyError() throws {
        let proxy = keep(try ConnectProxyServer(rejectAll: true))
        let route = ProxyRoute(scheme: .http, host: proxy.host, port: proxy.port, source: "config")
        let result = probe(ProbeTarget(host: "127.0.0.1", port: 443, serverName: "api.test", proxy: route))
        XCTAssertEqual(result.failure?.kind, .proxy)
        XCTAssertTrue(result.failure?.message.contains("403") ?? false, result.failure?.message ?? "")
        XCTAssertEqual(result.proxy, route)
        XCTAssertTrue(result.chain.isEmpty)
    }

    func testUnreachableProxyIsAProxyError() throws {
        let route = ProxyRoute(scheme: .http, host: "127.0.0.1", port: try LocalPorts.closedPort(), source: "config")
        let result = probe(ProbeTarget(host: "127.0.0.1", port: 443, serverName: "api.test", proxy: route))
        XCTAssertEqual(result.failure?.kind, .proxy)
        XCTAssertTrue(result.failure?.message.hasPrefix("cannot reach proxy") ?? false, result.failure?.message ?? "")
    }

    func testUnusableProxyFailsWithoutDialling() throws {
        let server = keep(try BlackHoleServer())
        let route = ProxyRoute.unusable(source: "https_proxy", problem: "https_proxy: https:// proxies are not supported")
        let targets = [
            ProbeTarget(host: "127.0.0.1", port: server.port, serverName: "api.test", proxy: route, timeout: 1),
            ProbeTarget(host: "127.0.0.1", port: try LocalPorts.closedPort(), serverName: "direct.test", timeout: 1),
        ]
        let results = ProbeEngine(concurrency: 2).run(targets)
        XCTAssertEqual(results[0].failure?.kind, .proxy)
        XCTAssertEqual(results[0].failure?.message, "https_proxy: https:// proxies are not supported")
        XCTAssertEqual(results[0].proxy, route)
        XCTAssertEqual(results[1].failure?.kind, .refused, "the other host is probed as usual")
        XCTAssertEqual(server.acceptedConnections, 0, "nothing is dialled for an unusable proxy")
    }

    func testSocks5hSendsTheNameToTheProxy() throws {
        let pki = try TestPKI()
        let server = keep(try LocalTLSServer(identity: try pki.identity()))
        let proxy = keep(try Socks5TestProxy(names: ["api.test": "127.0.0.1"], credentials: (user: "ops", password: "pw")))
        let route = ProxyRoute(scheme: .socks5h, host: "127.0.0.1", port: proxy.port, username: "ops", password: "pw", source: "all_proxy")
        let result = probe(ProbeTarget(host: "api.test", port: server.port, serverName: "api.test", trust: pki.trust, proxy: route))
        XCTAssertTrue(result.trusted, "\(String(describing: result.failure)) \(result.trustError ?? "")")
        XCTAssertEqual(result.chain.count, 3)
        XCTAssertEqual(result.address, "127.0.0.1", "the proxy's IP; its port is in the proxy URL")
        XCTAssertEqual(proxy.requests, [.init(host: "api.test", port: server.port, sentName: true)])
    }

    func testSocks5ResolvesTheTargetLocally() throws {
        let pki = try TestPKI()
        let server = keep(try LocalTLSServer(identity: try pki.identity()))
        let proxy = keep(try Socks5TestProxy())
        let route = ProxyRoute(scheme: .socks5, host: "127.0.0.1", port: proxy.port, source: "all_proxy")
        let result = probe(ProbeTarget(host: "localhost", port: server.port, serverName: "api.test", trust: pki.trust, proxy: route))
        XCTAssertTrue(result.trusted, "\(String(describing: result.failure)) \(result.trustError ?? "")")
        XCTAssertEqual(proxy.requests.first?.sentName, false)
        XCTAssertEqual(proxy.requests.first?.port, server.port)
    }

    func testSocks5RefusalIsAProxyError() throws {
        let proxy = keep(try Socks5TestProxy())
        let route = ProxyRoute(scheme: .socks5h, host: "127.0.0.1", port: proxy.port, source: "all_proxy")
        let result = probe(ProbeTarget(host: "unknown.test", port: 443, serverName: "unknown.test", proxy: route))
        XCTAssertEqual(result.failure?.kind, .proxy)
        XCTAssertEqual(result.failure?.message, "SOCKS5 proxy refused the connection: host unreachable")
    }

    // MARK: Scale

    func testBatchOfTwoHundredServersAllAnswer() throws {
        let pki = try TestPKI()
        let identity = try pki.identity()
        let fleet = try (0..<200).map { _ in keep(try LocalTLSServer(identity: identity)) }
        let results = engine.run(fleet.map { ProbeTarget.local($0, trust: pki.trust) })
        XCTAssertEqual(results.count, 200)
        let failures = results.compactMap(\.failure)
        XCTAssertTrue(failures.isEmpty, "\(failures.count) failed, first: \(failures.first.map(String.init(describing:)) ?? "")")
        XCTAssertEqual(results.filter(\.trusted).count, 200)
        XCTAssertEqual(fleet.map(\.acceptedConnections), Array(repeating: 1, count: 200))
    }

    func testTenThousandTargetsInOneCycleLeakNoDescriptor() throws {
        let port = try LocalPorts.closedPort()
        let engine = ProbeEngine(concurrency: 64)
        let before = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
        let results = engine.run(Array(repeating: ProbeTarget(host: "127.0.0.1", port: port, serverName: "api.test"), count: 10_000))
        XCTAssertEqual(results.count, 10_000)
        XCTAssertTrue(results.allSatisfy { $0.failure?.kind == .refused })
        let after = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
        XCTAssertEqual(after, before)
    }

    /// Silent servers hold every connection until its deadline, so no
    /// connection closes during the first wave and the server's count is
    /// exactly what the engine has open.
    func testSocketsInFlightNeverExceedConcurrency() throws {
        let blackHole = keep(try BlackHoleServer())
        let targets = Array(repeating: ProbeTarget(host: "127.0.0.1", port: blackHole.port, serverName: "api.test", timeout: 10), count: 20)
        let finished = expectation(description: "finish")
        let log = ArrivalLog()
        let cycle = engine.start(targets, onResult: { log.record($0, $1) }, onFinish: { finished.fulfill() })
        let giveUp = Date().addingTimeInterval(8)
        while blackHole.openConnections < 8 && Date() < giveUp {
            Thread.sleep(forTimeInterval: 0.01)
        }
        // Room for a ninth connection to show up if the engine allowed one.
        Thread.sleep(forTimeInterval: 0.3)
        XCTAssertEqual(blackHole.acceptedConnections, 8)
        XCTAssertEqual(blackHole.openConnections, 8)

        cycle.cancel()
        wait(for: [finished], timeout: 10)
        XCTAssertTrue(cycle.isFinished)
        XCTAssertTrue(log.snapshot().indices.isEmpty, "a cancelled cycle delivers no result")
        XCTAssertEqual(blackHole.acceptedConnections, 8, "queued targets of a cancelled cycle are never dialled")
    }

    func testHungHostDoesNotDelayTheOthers() throws {
        let pki = try TestPKI()
        let server = keep(try LocalTLSServer(identity: try pki.identity()))
        let blackHole = keep(try BlackHoleServer())
        let engine = ProbeEngine(concurrency: 4)
        var targets = [ProbeTarget(host: "127.0.0.1", port: blackHole.port, serverName: "api.test", timeout: 3)]
        targets += (0..<20).map { _ in ProbeTarget.local(server, trust: pki.trust, timeout: 3) }
        let log = ArrivalLog()
        let finished = expectation(description: "finish")
        engine.start(targets, onResult: { log.record($0, $1) }, onFinish: { finished.fulfill() })
        wait(for: [finished], timeout: 30)
        let arrivals = log.snapshot()
        XCTAssertEqual(arrivals.indices.count, 21)
        XCTAssertEqual(arrivals.indices.last, 0, "the hung host's result comes after every other")
        XCTAssertEqual(arrivals.results[0]?.failure?.kind, .timeout)
        XCTAssertEqual(arrivals.results.values.filter(\.trusted).count, 20)
    }

    /// Found by an attack run: a server streaming records OpenSSL skips kept
    /// one loop thread inside a single SSL_connect, so every other probe
    /// on that thread missed its deadline.
    func testFloodingServersDoNotHoldUpTheirNeighbours() throws {
        let pki = try TestPKI()
        let server = keep(try LocalTLSServer(identity: try pki.identity()))
        let flood = keep(try FloodServer(mode: .tls))
        let floodingProxy = keep(try FloodServer(mode: .connectProxy))
        let proxyRoute = ProxyRoute(scheme: .http, host: floodingProxy.host, port: floodingProxy.port, source: "config")
        var targets = [
            ProbeTarget(host: "127.0.0.1", port: flood.port, serverName: "api.test", timeout: 3),
            ProbeTarget(host: "127.0.0.1", port: server.port, serverName: "api.test", trust: pki.trust, proxy: proxyRoute, timeout: 3),
        ]
        targets += (0..<20).map { _ in ProbeTarget.local(server, trust: pki.trust, timeout: 3) }
        let started = Date()
        let results = ProbeEngine(concurrency: 4).run(targets)
        let elapsed = Date().timeIntervalSince(started)

        XCTAssertEqual(results.count, 22)
        for flooded in results.prefix(2) {
            XCTAssertNotNil(flooded.failure)
            XCTAssertTrue([.tls, .timeout].contains(flooded.failure?.kind), "\(String(describing: flooded.failure))")
        }
        XCTAssertEqual(results.dropFirst(2).filter(\.trusted).count, 20, "\(results.dropFirst(2).compactMap(\.failure))")
        XCTAssertLessThan(elapsed, 3 + 2, "the cycle ends within its hosts' deadline plus a margin")
        XCTAssertGreaterThan(flood.acceptedConnections, 0)
        XCTAssertGreaterThan(floodingProxy.acceptedConnections, 0)
    }

    func testResultsArriveForEveryIndexAndFinishComesLast() throws {
        let pki = try TestPKI()
        let server = keep(try LocalTLSServer(identity: try pki.identity()))
        let closed = try LocalPorts.closedPort()
        var targets = (0..<30).map { _ in ProbeTarget.local(server, trust: pki.trust) }
        targets[7] = ProbeTarget(host: "127.0.0.1", port: closed, serverName: "api.test")
        let log = ArrivalLog()
        let finished = expectation(description: "finish")
        let cycle = engine.start(
            targets, onResult: { log.record($0, $1) },
            onFinish: {
                log.recordFinish()
                finished.fulfill()
            })
        wait(for: [finished], timeout: 60)
        XCTAssertTrue(cycle.isFinished)
        let arrivals = log.snapshot()
        XCTAssertEqual(Set(arrivals.indices), Set(0..<30))
        XCTAssertEqual(arrivals.indices.count, 30)
        XCTAssertTrue(arrivals.finishedAfterResults)
        XCTAssertEqual(arrivals.results[7]?.failure?.kind, .refused)
        XCTAssertTrue(arrivals.results[8]?.trusted ?? false)
    }

    func testEmptyCycleFinishes() {
        let finished = expectation(description: "finish")
        let cycle = engine.start([], onResult: { _, _ in XCTFail("no targets, no results") }, onFinish: { finished.fulfill() })
        wait(for: [finished], timeout: 10)
        XCTAssertTrue(cycle.isFinished)
    }
}

/// Results as the engine delivered them, for assertions after the cycle.
final class ArrivalLog: @unchecked Sendable {
    struct Snapshot {
        var indices: [Int]
        var results: [Int: ProbeResult]
        var finishedAfterResults: Bool
    }

    private let lock = NSLock()
    private var indices: [Int] = []
    private var results: [Int: ProbeResult] = [:]
    private var finishedAfterResults = false
    private var finished = false

    func record(_ index: Int, _ result: ProbeResult) {
        lock.lock()
        defer { lock.unlock() }
        if finished { finishedAfterResults = false }
        indices.append(index)
        results[index] = result
    }

    func recordFinish() {
        lock.lock()
        defer { lock.unlock() }
        finished = true
        finishedAfterResults = true
    }

    func snapshot() -> Snapshot {
        lock.lock()
        defer { lock.unlock() }
        return Snapshot(indices: indices, results: results, finishedAfterResults: finishedAfterResults)
    }
}
