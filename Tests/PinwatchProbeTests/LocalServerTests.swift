import COpenSSL
import Foundation
import PinwatchTestSupport
import XCTest

@testable import PinwatchLocalWorld
@testable import PinwatchProbe

final class LocalServerTests: XCTestCase {
    private struct Hierarchy {
        let root: CertificateAuthority
        let intermediate: CertificateAuthority
        let identity: Identity
    }

    private func makeHierarchy(name: String = "localhost") throws -> Hierarchy {
        let root = try CertificateAuthority.makeRoot(commonName: "Server Test Root")
        let intermediate = try root.issueIntermediate(commonName: "Server Test CA")
        let leaf = try intermediate.issueLeaf(commonName: name, dnsNames: [name], ipAddresses: ["127.0.0.1"])
        return Hierarchy(
            root: root, intermediate: intermediate, identity: Identity(leaf: leaf, intermediates: [intermediate.certificate]))
    }

    func testHandshakeReceivesExactlyTheServedChain() throws {
        let hierarchy = try makeHierarchy()
        let server = try LocalTLSServer(identity: hierarchy.identity)
        defer { server.stop() }
        XCTAssertEqual(server.host, "127.0.0.1")

        let received = try TestTLSClient.fetchChain(port: server.port)
        XCTAssertEqual(received, hierarchy.identity.chain.map(\.der))
        XCTAssertFalse(received.contains(hierarchy.root.certificate.der))
        XCTAssertTrue(eventually { server.completedHandshakes == 1 && server.openConnections == 0 })
        XCTAssertEqual(server.acceptedConnections, 1)
    }

    func testServerClosesPolitelyAfterTheHandshake() throws {
        let server = try LocalTLSServer(identity: try makeHierarchy().identity)
        defer { server.stop() }
        let socket = try BlockingSocket(port: server.port)
        _ = try TestTLSClient.handshake(over: socket)
        // After close_notify the server half-closes: the client reads to a
        // clean end of stream, not a timeout and not a reset.
        XCTAssertEqual(socket.readToEnd().outcome, .endOfStream)
    }

    func testReplaceIdentityChangesTheChainOfTheNextConnection() throws {
        let first = try makeHierarchy(name: "first.example.test")
        let second = try makeHierarchy(name: "second.example.test")
        let server = try LocalTLSServer(identity: first.identity)
        defer { server.stop() }

        XCTAssertEqual(try TestTLSClient.fetchChain(port: server.port), first.identity.chain.map(\.der))
        try server.replaceIdentity(second.identity)
        XCTAssertEqual(try TestTLSClient.fetchChain(port: server.port), second.identity.chain.map(\.der))
        XCTAssertEqual(server.identity.chain.map(\.der), second.identity.chain.map(\.der))
    }

    func testMismatchedKeyIsRefused() throws {
        let hierarchy = try makeHierarchy()
        let wrongKey = Identity(chain: hierarchy.identity.chain, key: try .ecdsa(.p256))
        XCTAssertThrowsError(try LocalTLSServer(identity: wrongKey))
        XCTAssertThrowsError(try LocalTLSServer(identity: Identity(chain: [], key: wrongKey.key)))
        let server = try LocalTLSServer(identity: hierarchy.identity)
        defer { server.stop() }
        XCTAssertThrowsError(try server.replaceIdentity(wrongKey))
        XCTAssertEqual(try TestTLSClient.fetchChain(port: server.port), hierarchy.identity.chain.map(\.der))
    }

    func testSelfSignedAndHugeLeavesAreServed() throws {
        let selfSigned = try SelfSignedLeaf.make(commonName: "localhost", dnsNames: ["localhost"])
        let plain = try LocalTLSServer(identity: Identity(leaf: selfSigned))
        defer { plain.stop() }
        XCTAssertEqual(try TestTLSClient.fetchChain(port: plain.port), [selfSigned.certificate.der])

        // A client with OpenSSL's default 100 KB limit refuses the ~1 MB
        // leaf; the server must survive that and keep serving.
        let root = try CertificateAuthority.makeRoot(commonName: "Root")
        let huge = try root.issueLeaf(commonName: "huge.example.test", paddingBytes: 1_000_000)
        let hugeServer = try LocalTLSServer(identity: Identity(leaf: huge))
        defer { hugeServer.stop() }
        XCTAssertThrowsError(try TestTLSClient.fetchChain(port: hugeServer.port))
        XCTAssertTrue(eventually { hugeServer.openConnections == 0 })
        XCTAssertThrowsError(try TestTLSClient.fetchChain(port: hugeServer.port))
        XCTAssertEqual(hugeServer.acceptedConnections, 2)
    }

    func testPeakConcurrentConnectionsCountsSocketsOpenAtOnce() throws {
        let server = try LocalTLSServer(identity: try makeHierarchy().identity)
        defer { server.stop() }
        var held = try (0..<3).map { _ in try BlockingSocket(port: server.port) }
        XCTAssertTrue(eventually { server.acceptedConnections == 3 })
        XCTAssertEqual(server.openConnections, 3)
        held.forEach { $0.close() }
        held.removeAll()
        XCTAssertTrue(eventually { server.openConnections == 0 })

        for _ in 0..<4 {
            _ = try TestTLSClient.fetchChain(port: server.port)
            XCTAssertTrue(eventually { server.openConnections == 0 })
        }
        XCTAssertEqual(server.acceptedConnections, 7)
        XCTAssertEqual(server.completedHandshakes, 4)
        XCTAssertEqual(server.peakConcurrentConnections, 3)
    }

    func testStopClosesTheListenerAndOpenConnections() throws {
        let server = try LocalTLSServer(identity: try makeHierarchy().identity)
        let port = server.port
        let idle = try BlockingSocket(port: port)
        XCTAssertTrue(eventually { server.openConnections == 1 })
        server.stop()
        server.stop()
        XCTAssertNotEqual(idle.readSome(), .timedOut)
        XCTAssertThrowsError(try BlockingSocket(port: port))
    }

    func testDroppingTheServerStopsIt() throws {
        var server: LocalTLSServer? = try LocalTLSServer(identity: try makeHierarchy().identity)
        let port = try XCTUnwrap(server?.port)
        XCTAssertNoThrow(try BlockingSocket(port: port))
        server = nil
        XCTAssertThrowsError(try BlockingSocket(port: port))
    }

    func testStalledConnectionIsDropped() throws {
        let server = try LocalTLSServer(identity: try makeHierarchy().identity, stallTimeout: 0.2)
        defer { server.stop() }
        let silent = try BlockingSocket(port: server.port)
        // The client never sends a ClientHello; the server gives up on it.
        XCTAssertNotEqual(silent.readSome(), .timedOut)
        XCTAssertTrue(eventually { server.openConnections == 0 })
    }

    func testBlackHoleAcceptsAndSendsNothingUntilStopped() throws {
        let server = try BlackHoleServer()
        let socket = try BlockingSocket(port: server.port, timeout: 0.3)
        try socket.send("GET / HTTP/1.0\r\n\r\n")
        XCTAssertEqual(socket.readSome(), .timedOut)
        XCTAssertTrue(eventually { server.acceptedConnections == 1 && server.openConnections == 1 })
        server.stop()
        XCTAssertEqual(socket.readSome(), .endOfStream)
        XCTAssertThrowsError(try BlockingSocket(port: server.port))
    }

    func testPlaintextServerAnswersPlainHTTP() throws {
        let server = try PlaintextServer()
        defer { server.stop() }
        let socket = try BlockingSocket(port: server.port)
        let (bytes, outcome) = socket.readToEnd()
        XCTAssertEqual(String(decoding: bytes, as: UTF8.self), PlaintextServer.defaultResponse)
        XCTAssertEqual(outcome, .endOfStream)
        XCTAssertThrowsError(try TestTLSClient.fetchChain(port: server.port))
    }

    func testConnectProxyRelaysATLSHandshakeAndRecordsTheTarget() throws {
        let hierarchy = try makeHierarchy()
        let server = try LocalTLSServer(identity: hierarchy.identity)
        defer { server.stop() }
        let proxy = try ConnectProxyServer()
        defer { proxy.stop() }

        let socket = try BlockingSocket(port: proxy.port)
        try socket.send(
            "CONNECT 127.0.0.1:\(server.port) HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n"
                + "Proxy-Authorization: Basic dXNlcjpzZWNyZXQ=\r\n\r\n")
        let head = try XCTUnwrap(socket.readHTTPHead())
        XCTAssertTrue(head.hasPrefix("HTTP/1.1 200 "), head)
        XCTAssertEqual(try TestTLSClient.handshake(over: socket), hierarchy.identity.chain.map(\.der))

        XCTAssertEqual(proxy.connectTargets, ["127.0.0.1:\(server.port)"])
        XCTAssertEqual(proxy.requests.first?.proxyAuthorization, "Basic dXNlcjpzZWNyZXQ=")
        XCTAssertEqual(server.acceptedConnections, 1)
        XCTAssertTrue(eventually { server.completedHandshakes == 1 })
        // The server's half-close travels through the tunnel, and so does
        // the client's: then both ends and the tunnel are gone.
        XCTAssertEqual(socket.readToEnd().outcome, .endOfStream)
        socket.close()
        XCTAssertTrue(eventually(timeout: 3) { proxy.openConnections == 0 && server.openConnections == 0 })
    }

    func testConnectProxyUsesHostOverridesWithoutDNS() throws {
        let hierarchy = try makeHierarchy(name: "api.example.test")
        let server = try LocalTLSServer(identity: hierarchy.identity)
        defer { server.stop() }
        let proxy = try ConnectProxyServer(hostOverrides: ["api.example.test": "127.0.0.1"])
        defer { proxy.stop() }

        let socket = try BlockingSocket(port: proxy.port)
        try socket.send("CONNECT api.example.test:\(server.port) HTTP/1.1\r\n\r\n")
        XCTAssertTrue(try XCTUnwrap(socket.readHTTPHead()).hasPrefix("HTTP/1.1 200 "))
        XCTAssertEqual(try TestTLSClient.handshake(over: socket, serverName: "api.example.test").count, 2)
        XCTAssertEqual(proxy.requests.map(\.hadProxyAuthorization), [false])

        let unknown = try BlockingSocket(port: proxy.port)
        try unknown.send("CONNECT unknown.example.test:443 HTTP/1.1\r\n\r\n")
        XCTAssertTrue(try XCTUnwrap(unknown.readHTTPHead()).hasPrefix("HTTP/1.1 502 "))
    }

    func testConnectProxyAnswers502WhenTheTargetIsClosed() throws {
        let proxy = try ConnectProxyServer()
        defer { proxy.stop() }
        let closedPort = try LocalPorts.closedPort()
        let socket = try BlockingSocket(port: proxy.port)
        try socket.send("CONNECT 127.0.0.1:\(closedPort) HTTP/1.1\r\n\r\n")
        XCTAssertTrue(try XCTUnwrap(socket.readHTTPHead()).hasPrefix("HTTP/1.1 502 "))
        XCTAssertEqual(socket.readToEnd().outcome, .endOfStream)
        XCTAssertEqual(proxy.connectTargets, ["127.0.0.1:\(closedPort)"])
    }

    func testRejectingProxyAnswers403AndDialsNothing() throws {
        let server = try LocalTLSServer(identity: try makeHierarchy().identity)
        defer { server.stop() }
        let proxy = try ConnectProxyServer(rejectAll: true)
        defer { proxy.stop() }
        let socket = try BlockingSocket(port: proxy.port)
        try socket.send("CONNECT 127.0.0.1:\(server.port) HTTP/1.1\r\n\r\n")
        XCTAssertTrue(try XCTUnwrap(socket.readHTTPHead()).hasPrefix("HTTP/1.1 403 "))
        XCTAssertEqual(proxy.connectTargets, ["127.0.0.1:\(server.port)"])
        XCTAssertEqual(server.acceptedConnections, 0)
    }

    func testClosedPortRefusesConnections() throws {
        let port = try LocalPorts.closedPort()
        XCTAssertTrue((1...65535).contains(port))
        XCTAssertThrowsError(try BlockingSocket(port: port)) { error in
            guard case BlockingSocket.Failure.call("connect", let code) = error else {
                return XCTFail("\(error)")
            }
            XCTAssertEqual(code, ECONNREFUSED)
        }
    }

    func testManyServersShareOneLoop() throws {
        let identity = try makeHierarchy().identity
        let servers = try (0..<200).map { _ in try LocalTLSServer(identity: identity) }
        defer { servers.forEach { $0.stop() } }
        XCTAssertEqual(Set(servers.map(\.port)).count, 200)
        for server in servers.prefix(20) {
            XCTAssertEqual(try TestTLSClient.fetchChain(port: server.port), identity.chain.map(\.der))
        }
    }
}
