import Foundation
import PinwatchCore
import PinwatchProbe
import XCTest

/// The STARTTLS dialogues without sockets: replies in any pieces, the
/// forms real servers use, and what a proxy's answer carries behind it.
final class StartTLSExchangeTests: XCTestCase {
    /// Feeds `reply` `piece` bytes at a time, answering each outgoing
    /// message; returns the outcome and everything the client sent.
    private func run(_ dialogue: StartTLSProtocol, _ reply: String, piece: Int = 1) -> (ProxyExchange.Progress, String) {
        var exchange = StartTLSExchange(dialogue: dialogue, serverName: "chat.example")
        var sent = exchange.outgoing
        exchange.didSend(exchange.outgoing.count)
        var rest = Array(reply.utf8)[...]
        while !rest.isEmpty {
            let progress = exchange.receive(Array(rest.prefix(piece)))
            rest = rest.dropFirst(piece)
            sent += exchange.outgoing
            exchange.didSend(exchange.outgoing.count)
            if progress != .needMore { return (progress, String(decoding: sent, as: UTF8.self)) }
        }
        return (.needMore, String(decoding: sent, as: UTF8.self))
    }

    func testSMTPMultiLineRepliesArriveByteByByte() {
        let (progress, sent) = run(
            .smtp, "220-mx.example ESMTP\r\n220 more banner\r\n250-mx.example\r\n250-SIZE 1000\r\n250 starttls\r\n220 2.0.0 go\r\n")
        XCTAssertEqual(progress, .established)
        XCTAssertEqual(sent, "EHLO pinwatch.invalid\r\nSTARTTLS\r\n")
    }

    func testSMTPRefusalsQuoteTheServer() {
        XCTAssertEqual(
            run(.smtp, "554 5.7.1 no service here\r\n").0,
            .failed("starttls: the SMTP server refused the connection (greeting: 554 5.7.1 no service here)"))
        XCTAssertEqual(
            run(.smtp, "220 hi\r\n250-mx\r\n250 STARTTLS\r\n454 4.7.0 TLS not available\r\n", piece: 7).0,
            .failed("starttls: the SMTP server refused STARTTLS (454 4.7.0 TLS not available)"))
        XCTAssertEqual(
            run(.smtp, "HTTP/1.1 400 Bad Request\r\n").0, .failed("starttls: not an SMTP server (it said: HTTP/1.1 400 Bad Request)"))
    }

    func testIMAPCapabilitiesInTheGreetingSkipTheCapabilityCommand() {
        let (progress, sent) = run(.imap, "* OK [CAPABILITY IMAP4rev1 STARTTLS LOGINDISABLED] ready\r\nA2 OK go\r\n", piece: 5)
        XCTAssertEqual(progress, .established)
        XCTAssertEqual(sent, "A2 STARTTLS\r\n")
        XCTAssertEqual(
            run(.imap, "* PREAUTH welcome back\r\n").0,
            .failed("starttls: the IMAP server logged the connection in before TLS (greeting: * PREAUTH welcome back)"))
    }

    func testXMPPOpensTheStreamToTheServerNameAndWaitsForProceed() {
        let (progress, sent) = run(
            .xmpp,
            "<?xml version='1.0'?><stream:stream xmlns:stream='http://etherx.jabber.org/streams' version='1.0'>"
                + "<stream:features><starttls xmlns='urn:ietf:params:xml:ns:xmpp-tls'/></stream:features>"
                + "<proceed xmlns='urn:ietf:params:xml:ns:xmpp-tls'/>", piece: 13)
        XCTAssertEqual(progress, .established)
        XCTAssertTrue(sent.contains("<stream:stream to='chat.example' version='1.0'"), sent)
        XCTAssertTrue(sent.hasSuffix("<starttls xmlns='urn:ietf:params:xml:ns:xmpp-tls'/>"), sent)
    }

    func testPostgreSQLAnswersInOneByte() {
        XCTAssertEqual(StartTLSExchange(dialogue: .postgres, serverName: "db").outgoing, [0, 0, 0, 8, 0x04, 0xD2, 0x16, 0x2F])
        XCTAssertEqual(run(.postgres, "S").0, .established)
        XCTAssertEqual(
            run(.postgres, "E").0,
            .failed("starttls: the PostgreSQL server answered the SSLRequest with an error (a server older than 7.2, or not PostgreSQL)"))
    }

    func testAnEndlessDialogueIsCut() {
        let greeting = "220-" + String(repeating: "x", count: 100) + "\r\n"
        let (progress, _) = run(.smtp, String(repeating: greeting, count: 1000), piece: 4096)
        XCTAssertEqual(progress, .failed("starttls: the SMTP server sent more than 64 KiB before TLS"))
    }

    /// The target's first words can arrive in the read that ends a proxy's
    /// answer: they are the dialogue's, not the proxy's to drop.
    func testWhatFollowsAProxysAnswerIsKept() throws {
        let http = try ProxyRoute.parse(url: "http://proxy.test:3128", source: "config")
        var connect = ProxyExchange(route: http, targetHost: "mail.example", targetPort: 25)
        XCTAssertEqual(connect.receive(Array("HTTP/1.1 200 Connection established\r\n\r\n220 mx ESMTP\r\n".utf8)), .established)
        XCTAssertEqual(String(decoding: connect.surplus, as: UTF8.self), "220 mx ESMTP\r\n")

        let socks = try ProxyRoute.parse(url: "socks5h://proxy.test:1080", source: "config")
        var tunnel = ProxyExchange(route: socks, targetHost: "mail.example", targetPort: 25)
        XCTAssertEqual(tunnel.receive([5, 0]), .needMore)
        XCTAssertEqual(tunnel.receive([5, 0, 0, 1, 127, 0, 0, 1, 0, 25] + Array("220 mx\r\n".utf8)), .established)
        XCTAssertEqual(String(decoding: tunnel.surplus, as: UTF8.self), "220 mx\r\n")
    }
}
