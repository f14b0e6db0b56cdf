import Foundation
import PinwatchCore
import PinwatchLocalWorld
import PinwatchProbe
import PinwatchTestSupport
import XCTest

/// `starttls:` through the real engine: local peers that hold each
/// protocol's plaintext dialogue before TLS, a CONNECT proxy in front of
/// one, and Debian's own PostgreSQL.
final class StartTLSTests: XCTestCase {
    private let engine = ProbeEngine(concurrency: 8)
    /// Servers live until the test ends.
    private var servers: [AnyObject] = []

    override func tearDown() {
        servers.removeAll()
    }

    private func keep<Server: AnyObject>(_ server: Server) -> Server {
        servers.append(server)
        return server
    }

    private func target(port: Int, trust: TrustSource, starttls: StartTLSProtocol?, proxy: ProxyRoute? = nil) -> ProbeTarget {
        ProbeTarget(
            host: "api.test", port: port, serverName: "api.test", connectAddress: proxy == nil ? "127.0.0.1" : nil, trust: trust,
            proxy: proxy, starttls: starttls)
    }

    func testEveryProtocolGetsTheChainAfterItsDialogue() throws {
        let pki = try TestPKI()
        let identity = try pki.identity()
        let protocols = StartTLSProtocol.allCases
        let peers = try protocols.map { keep(try LocalTLSServer(identity: identity, starttls: $0)) }
        let results = engine.run(zip(protocols, peers).map { target(port: $1.port, trust: pki.trust, starttls: $0) })

        for (dialogue, result) in zip(protocols, results) {
            XCTAssertNil(result.failure, "\(dialogue): \(result.failure?.message ?? "")")
            XCTAssertTrue(result.trusted, "\(dialogue): \(result.trustError ?? "")")
            XCTAssertEqual(result.chain.first?.facts.certSHA256, identity.chain[0].facts.certSHA256, "\(dialogue)")
            XCTAssertEqual(result.chain.count, 3, "\(dialogue)")
        }
    }

    func testAServerWithoutSTARTTLSFailsInPlainWords() throws {
        let pki = try TestPKI()
        let identity = try pki.identity()
        let protocols = StartTLSProtocol.allCases
        let peers = try protocols.map { keep(try LocalTLSServer(identity: identity, starttls: $0, offersStartTLS: false)) }
        let results = engine.run(zip(protocols, peers).map { target(port: $1.port, trust: pki.trust, starttls: $0) })

        XCTAssertEqual(results.map(\.failure?.kind), [.tls, .tls, .tls, .tls])
        XCTAssertEqual(
            results.map { $0.failure?.message ?? "" },
            [
                "starttls: the SMTP server did not offer STARTTLS (EHLO reply: 250-mail.test | 250-PIPELINING | 250 8BITMIME)",
                "starttls: the IMAP server did not offer STARTTLS (capabilities: IMAP4REV1 LOGINDISABLED)",
                "starttls: the XMPP server did not offer STARTTLS (features: <stream:features><mechanisms "
                    + "xmlns='urn:ietf:params:xml:ns:xmpp-sasl'><mechanism>PLAIN</mechanism></mechanisms></stream:features>)",
                "starttls: the PostgreSQL server does not accept TLS (it answered N to the SSLRequest)",
            ])
        XCTAssertTrue(results.allSatisfy(\.chain.isEmpty))
    }

    /// The converse: `starttls:` on a port that speaks TLS at once. Its
    /// server waits for the client's hello and never greets; the timeout
    /// says so rather than naming the dialogue's phase.
    func testATLSPortNeverGreetsAndTheTimeoutSaysWhatThatMeans() throws {
        let pki = try TestPKI()
        let peer = keep(try LocalTLSServer(identity: try pki.identity()))
        for dialogue in [StartTLSProtocol.smtp, .imap] {
            let probe = ProbeTarget(
                host: "api.test", port: peer.port, serverName: "api.test", connectAddress: "127.0.0.1", trust: pki.trust, timeout: 0.3,
                starttls: dialogue)
            let result = engine.run([probe])[0]
            XCTAssertEqual(result.failure?.kind, .timeout)
            XCTAssertEqual(
                result.failure?.message,
                "timed out after 0.3 s: no \(dialogue.displayName) greeting: is this a port that speaks TLS at once? (then remove starttls:)"
            )
        }
    }

    /// A server that greeted and then stalls is a slow mail server, not a
    /// TLS port: the timeout names the dialogue, as before.
    func testAServerThatGreetedThenStallsTimesOutInTheDialogue() throws {
        let pki = try TestPKI()
        let stalling = keep(try ScriptedPeer([.send(Array("220 mail.test ESMTP\r\n".utf8))], lifetime: 10))
        var probe = target(port: stalling.port, trust: pki.trust, starttls: .smtp)
        probe.timeout = 0.5
        let result = engine.run([probe])[0]
        XCTAssertEqual(result.failure?.message, "timed out after 0.5 s during the STARTTLS dialogue")
    }

    func testWithoutTheSettingAnSMTPPortIsNotATLSServer() throws {
        let pki = try TestPKI()
        let peer = keep(try LocalTLSServer(identity: try pki.identity(), starttls: .smtp))
        let result = engine.run([target(port: peer.port, trust: pki.trust, starttls: nil)])[0]
        XCTAssertEqual(result.failure?.message, "not a TLS server (got plaintext)")
    }

    func testTheDialogueRunsAfterAConnectProxysTunnel() throws {
        let pki = try TestPKI()
        let peer = keep(try LocalTLSServer(identity: try pki.identity(), starttls: .smtp))
        let proxy = keep(try ConnectProxyServer(hostOverrides: ["api.test": "127.0.0.1"]))
        let route = ProxyRoute(scheme: .http, host: proxy.host, port: proxy.port, source: "config")
        let result = engine.run([target(port: peer.port, trust: pki.trust, starttls: .smtp, proxy: route)])[0]

        XCTAssertNil(result.failure, result.failure?.message ?? "")
        XCTAssertTrue(result.trusted, result.trustError ?? "")
        XCTAssertEqual(result.proxy, route)
        XCTAssertEqual(proxy.connectTargets, ["api.test:\(peer.port)"])
    }

    func testTheDialogueRunsAfterASOCKS5Tunnel() throws {
        let pki = try TestPKI()
        let peer = keep(try LocalTLSServer(identity: try pki.identity(), starttls: .imap))
        let proxy = keep(try Socks5TestProxy(names: ["api.test": "127.0.0.1"]))
        let route = ProxyRoute(scheme: .socks5h, host: "127.0.0.1", port: proxy.port, source: "all_proxy")
        let result = engine.run([target(port: peer.port, trust: pki.trust, starttls: .imap, proxy: route)])[0]

        XCTAssertNil(result.failure, result.failure?.message ?? "")
        XCTAssertTrue(result.trusted, result.trustError ?? "")
        XCTAssertEqual(proxy.requests, [.init(host: "api.test", port: peer.port, sentName: true)])
    }

    /// A server that never greets times out in its dialogue, within the
    /// host's timeout, while a server beside it is done long before.
    func testASilentServerTimesOutInTheDialogueWithoutHoldingUpOthers() throws {
        let pki = try TestPKI()
        let silent = keep(try ScriptedPeer([], lifetime: 10))
        let peer = keep(try LocalTLSServer(identity: try pki.identity(), starttls: .imap))
        var slow = target(port: silent.port, trust: pki.trust, starttls: .smtp)
        slow.timeout = 1.5
        let results = engine.run([slow, target(port: peer.port, trust: pki.trust, starttls: .imap)])

        XCTAssertEqual(results[0].failure?.kind, .timeout)
        XCTAssertEqual(
            results[0].failure?.message,
            "timed out after 1.5 s: no SMTP greeting: is this a port that speaks TLS at once? (then remove starttls:)")
        XCTAssertNil(results[1].failure, results[1].failure?.message ?? "")
        XCTAssertLessThan(results[1].elapsed, 1.5, "the IMAP probe finished without waiting for the silent server")
    }

    func testTheServersWordsAreSanitisedAndBounded() throws {
        let pki = try TestPKI()
        let hostile = keep(
            try ScriptedPeer(
                .send(Array("220 mail.test \u{1B}]52;c;ZXZpbA==\u{07}ready\r\n".utf8)), .awaitBytes(1),
                .send(Array("250-mail.test\r\n250 \u{1B}[2J".utf8) + Array(repeating: UInt8(ascii: "x"), count: 300) + [13, 10])))
        let endless = keep(try ScriptedPeer(.repeatForever(Array(repeating: UInt8(ascii: "2"), count: 1024))))
        let results = engine.run([
            target(port: hostile.port, trust: pki.trust, starttls: .smtp), target(port: endless.port, trust: pki.trust, starttls: .smtp),
        ])

        let message = results[0].failure?.message ?? ""
        XCTAssertTrue(message.hasPrefix("starttls: the SMTP server did not offer STARTTLS (EHLO reply: 250-mail.test | 250 "), message)
        XCTAssertFalse(message.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, message)
        XCTAssertLessThan(message.count, 300, message)
        XCTAssertEqual(results[1].failure?.message, "starttls: the SMTP server sent a line longer than 8 KiB")
    }

    func testDebiansPostgreSQLServesItsChainAfterTheSSLRequest() throws {
        try TestEnvironment.require(
            PostgreSQLServer.programs != nil, "PostgreSQL is not installed (apt-get install postgresql)", skip: { XCTSkip($0) })
        let pki = try TestPKI()
        let identity = try pki.identity()
        let server = keep(try PostgreSQLServer(identity: identity))
        let results = engine.run([
            target(port: server.port, trust: pki.trust, starttls: .postgres), target(port: server.port, trust: pki.trust, starttls: nil),
        ])

        XCTAssertNil(results[0].failure, results[0].failure?.message ?? "")
        XCTAssertTrue(results[0].trusted, results[0].trustError ?? "")
        XCTAssertEqual(results[0].chain.first?.facts.certSHA256, identity.chain[0].facts.certSHA256)
        XCTAssertEqual(results[1].failure?.kind, .tls, "PostgreSQL speaks no TLS before an SSLRequest")
    }
}

extension StartTLSTests {
    func testDebiansEximOffersSTARTTLSOrSaysItDoesNot() throws {
        try TestEnvironment.require(
            EximSMTPServer.isUsable, "Exim is not installed (apt-get install exim4-daemon-light) or the tests do not run as root",
            skip: { XCTSkip($0) })
        let pki = try TestPKI()
        let identity = try pki.identity()
        let offering = try EximSMTPServer(identity: identity)
        let refusing = try EximSMTPServer(identity: identity, offersTLS: false)
        let results = engine.run([
            target(port: offering.port, trust: pki.trust, starttls: .smtp), target(port: refusing.port, trust: pki.trust, starttls: .smtp),
        ])

        XCTAssertNil(results[0].failure, results[0].failure?.message ?? "")
        XCTAssertTrue(results[0].trusted, results[0].trustError ?? "")
        XCTAssertEqual(results[0].chain.first?.facts.certSHA256, identity.chain[0].facts.certSHA256)
        XCTAssertEqual(results[1].failure?.kind, .tls)
        XCTAssertTrue(
            results[1].failure?.message.hasPrefix("starttls: the SMTP server did not offer STARTTLS (EHLO reply: 250-mail.test Hello")
                ?? false,
            results[1].failure?.message ?? "")
    }
}
