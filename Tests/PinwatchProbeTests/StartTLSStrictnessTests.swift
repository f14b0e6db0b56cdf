import Foundation
import PinwatchCore
import PinwatchProbe
import PinwatchTestSupport
import XCTest

/// Scripted servers that bend the STARTTLS dialogues: an offer hidden in an
/// XML comment, a DTD, an IMAP answer under a tag nobody sent, a refusal
/// carrying markup. Each fails at once, in our words.
final class StartTLSStrictnessTests: XCTestCase {
    private let engine = ProbeEngine(concurrency: 4)
    private var servers: [AnyObject] = []
    /// Longer than any of these dialogues: a probe that reaches it waited.
    private let timeout: TimeInterval = 3

    override func tearDown() {
        servers.removeAll()
    }

    private static let streamHeader =
        "<?xml version='1.0'?><stream:stream xmlns='jabber:client' xmlns:stream='http://etherx.jabber.org/streams'"
        + " id='s1' from='api.test' version='1.0'>"
    private static let offer = "<starttls xmlns='urn:ietf:params:xml:ns:xmpp-tls'/>"

    /// The outcome of a probe with `dialogue` of a peer that sends `reply`
    /// once the client has spoken (XMPP: the client opens the stream) or at
    /// once (IMAP: the server greets first).
    private func probe(_ dialogue: StartTLSProtocol, _ reply: String) throws -> ProbeResult {
        let send = ScriptedPeer.Step.send(Array(reply.utf8))
        let peer = try ScriptedPeer(dialogue == .xmpp ? [.awaitBytes(1), send] : [send])
        servers.append(peer)
        let target = ProbeTarget(
            host: "api.test", port: peer.port, serverName: "api.test", connectAddress: "127.0.0.1", timeout: timeout,
            starttls: dialogue)
        return try XCTUnwrap(engine.run([target]).first)
    }

    private func assertFailsAtOnce(_ result: ProbeResult, _ message: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(result.failure?.message, message, file: file, line: line)
        XCTAssertLessThan(result.elapsed, timeout - 1, "failed at once, not at the timeout", file: file, line: line)
    }

    func testAnXMPPOfferInsideACommentIsNoOffer() throws {
        let result = try probe(.xmpp, Self.streamHeader + "<stream:features><!-- \(Self.offer) --></stream:features>")
        assertFailsAtOnce(result, "starttls: the XMPP server sent an XML comment, which RFC 6120 forbids in a stream")
    }

    func testAnXMPPStreamWithADTDIsRefused() throws {
        let header = Self.streamHeader.replacingOccurrences(
            of: "<stream:stream", with: "<!DOCTYPE stream:stream [<!ENTITY x 'y'>]><stream:stream")
        let result = try probe(.xmpp, header + "<stream:features>\(Self.offer)</stream:features>")
        assertFailsAtOnce(result, "starttls: the XMPP server sent a DTD (<!DOCTYPE), which RFC 6120 forbids in a stream")
    }

    func testAnXMPPFailureIsDescribedNotQuoted() throws {
        let failure = "<failure xmlns='urn:ietf:params:xml:ns:xmpp-tls'><text>\u{1B}[2J<b>upgrade</b></text></failure>"
        let result = try probe(.xmpp, Self.streamHeader + "<stream:features>\(Self.offer)</stream:features>" + failure)
        assertFailsAtOnce(result, "starttls: the XMPP server refused STARTTLS (it answered <failure/>)")

        let closed = try probe(
            .xmpp, Self.streamHeader + "<stream:error><host-unknown xmlns='urn:ietf:params:xml:ns:xmpp-streams'/></stream:error>")
        assertFailsAtOnce(closed, "starttls: the XMPP server closed the stream with the error host-unknown")
    }

    func testAnIMAPAnswerUnderAnotherTagIsNamedAtOnce() throws {
        let afterGreeting = try probe(.imap, "* OK [CAPABILITY IMAP4rev1 STARTTLS] ready\r\nX9 OK begin TLS now\r\n")
        assertFailsAtOnce(afterGreeting, "starttls: the IMAP server answered STARTTLS with tag X9 (it was sent as A2)")

        let afterCapability = try probe(.imap, "* OK ready\r\n* CAPABILITY IMAP4rev1 STARTTLS\r\nB1 OK done\r\n")
        assertFailsAtOnce(afterCapability, "starttls: the IMAP server answered CAPABILITY with tag B1 (it was sent as A1)")
    }
}
