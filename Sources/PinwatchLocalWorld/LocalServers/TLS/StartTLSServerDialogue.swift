import Foundation
import PinwatchCore

/// The server's half of a STARTTLS dialogue (`starttls:`) for the tests'
/// and the demo's local peers: the greeting, the answers a real server of
/// the protocol gives, and the moment TLS starts. `offersTLS` false plays
/// a server without STARTTLS, which never starts TLS.
struct StartTLSServerDialogue {
    let dialogue: StartTLSProtocol
    let offersTLS: Bool
    private var received: [UInt8] = []

    init(dialogue: StartTLSProtocol, offersTLS: Bool) {
        self.dialogue = dialogue
        self.offersTLS = offersTLS
    }

    var greeting: [UInt8] {
        switch dialogue {
        case .smtp: return Array("220 mail.test ESMTP pinwatch-local\r\n".utf8)
        case .imap: return Array("* OK IMAP4rev1 pinwatch-local ready\r\n".utf8)
        case .xmpp, .postgres: return []
        }
    }

    /// The answer to what the client sent, and whether TLS starts after it.
    mutating func receive(_ bytes: [UInt8]) -> (reply: [UInt8], startTLS: Bool) {
        received += bytes
        var reply: [UInt8] = []
        switch dialogue {
        case .postgres:
            guard received.count >= 8 else { return ([], false) }
            received.removeFirst(8)
            return offersTLS ? (Array("S".utf8), true) : (Array("N".utf8), false)
        case .xmpp:
            let text = String(decoding: received, as: UTF8.self)
            if let header = text.range(of: "<stream:stream"), let close = text[header.upperBound...].firstIndex(of: ">") {
                received = Array(text[text.index(after: close)...].utf8)
                let tls = offersTLS ? "<starttls xmlns='urn:ietf:params:xml:ns:xmpp-tls'><required/></starttls>" : ""
                reply += Array(
                    ("<?xml version='1.0'?><stream:stream xmlns='jabber:client' xmlns:stream='http://etherx.jabber.org/streams'"
                        + " id='pinwatch-local' from='api.test' version='1.0'><stream:features>\(tls)"
                        + "<mechanisms xmlns='urn:ietf:params:xml:ns:xmpp-sasl'><mechanism>PLAIN</mechanism></mechanisms>"
                        + "</stream:features>").utf8)
            }
            if offersTLS, String(decoding: received, as: UTF8.self).contains("<starttls") {
                received = []
                return (reply + Array("<proceed xmlns='urn:ietf:params:xml:ns:xmpp-tls'/>".utf8), true)
            }
            return (reply, false)
        case .smtp, .imap:
            while let end = received.firstIndex(of: 0x0A) {
                let line = String(decoding: received[..<end], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                received.removeFirst(end + 1)
                let (answer, startTLS) = dialogue == .smtp ? smtp(line) : imap(line)
                reply += Array(answer.utf8)
                if startTLS { return (reply, true) }
            }
            return (reply, false)
        }
    }

    private func smtp(_ line: String) -> (String, Bool) {
        switch line.uppercased().split(separator: " ").first ?? "" {
        case "EHLO":
            return ("250-mail.test\r\n250-PIPELINING\r\n" + (offersTLS ? "250-STARTTLS\r\n" : "") + "250 8BITMIME\r\n", false)
        case "STARTTLS":
            return offersTLS ? ("220 2.0.0 Ready to start TLS\r\n", true) : ("502 5.5.1 Command not implemented\r\n", false)
        case "QUIT":
            return ("221 2.0.0 Bye\r\n", false)
        default:
            return ("500 5.5.2 Command unrecognised\r\n", false)
        }
    }

    private func imap(_ line: String) -> (String, Bool) {
        let words = line.split(separator: " ").map(String.init)
        guard words.count >= 2 else { return ("* BAD missing command\r\n", false) }
        let tag = words[0]
        switch words[1].uppercased() {
        case "CAPABILITY":
            return ("* CAPABILITY IMAP4rev1 \(offersTLS ? "STARTTLS " : "")LOGINDISABLED\r\n\(tag) OK CAPABILITY completed\r\n", false)
        case "STARTTLS" where offersTLS:
            return ("\(tag) OK Begin TLS negotiation now\r\n", true)
        default:
            return ("\(tag) BAD Unknown command\r\n", false)
        }
    }
}
