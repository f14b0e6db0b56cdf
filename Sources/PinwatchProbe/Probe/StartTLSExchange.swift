import Foundation
import PinwatchCore

/// The plaintext dialogue that asks a server to start TLS (`starttls:`),
/// without any I/O, as `ProxyExchange` is for a proxy: the probe writes
/// `outgoing`, feeds what it reads to `receive`, and starts the handshake
/// once the exchange is `established`. What the server sent after its
/// go-ahead is dropped, never handed to TLS (the STARTTLS injection flaw).
package struct StartTLSExchange {
    package typealias Progress = ProxyExchange.Progress

    /// A reply line longer than this is not one of these protocols.
    package static let maximumLineBytes = 8 * 1024
    /// The whole dialogue's input: greetings, capability lists, features.
    package static let maximumBytes = 64 * 1024
    /// How much of a server's reply a message quotes.
    static let quotedCharacters = 200

    private enum Stage {
        case smtpGreeting, smtpHello, smtpStartTLS
        case imapGreeting, imapCapability, imapStartTLS
        case xmppFeatures, xmppProceed
        case postgresAnswer
    }

    package let dialogue: StartTLSProtocol
    package private(set) var outgoing: [UInt8] = []
    private var stage: Stage
    private var pending: [UInt8] = []
    private var receivedTotal = 0
    /// The lines of a multi-line reply read so far (SMTP), or the
    /// capabilities announced so far (IMAP).
    private var lines: [String] = []

    /// `serverName` is the XMPP domain the stream is opened to.
    package init(dialogue: StartTLSProtocol, serverName: String) {
        self.dialogue = dialogue
        switch dialogue {
        case .smtp:
            stage = .smtpGreeting
        case .imap:
            stage = .imapGreeting
        case .xmpp:
            stage = .xmppFeatures
            let domain = serverName.filter { $0.isLetter || $0.isNumber || ".-:[]".contains($0) }
            outgoing = Array(
                ("<?xml version='1.0'?><stream:stream to='\(domain)' version='1.0' xmlns='jabber:client'"
                    + " xmlns:stream='http://etherx.jabber.org/streams'>").utf8)
        case .postgres:
            stage = .postgresAnswer
            // SSLRequest: length 8, then the request code 80877103.
            outgoing = [0, 0, 0, 8, 0x04, 0xD2, 0x16, 0x2F]
        }
    }

    /// Nothing read yet: a server that speaks first (SMTP, IMAP) has not
    /// greeted, or one spoken to first (XMPP, PostgreSQL) has not answered.
    package var heardNothing: Bool { receivedTotal == 0 }

    /// Why the deadline found the dialogue where it was. Silence from
    /// the start is what a port that speaks TLS at once gives: its server
    /// waits for the client's hello and never greets.
    package var silenceText: String? {
        guard heardNothing else { return nil }
        switch dialogue {
        case .smtp, .imap:
            return "no \(dialogue.displayName) greeting: is this a port that speaks TLS at once? (then remove starttls:)"
        case .xmpp, .postgres:
            return "no \(dialogue.displayName) answer to the opening: is this a port that speaks TLS at once? (then remove starttls:)"
        }
    }

    package mutating func didSend(_ count: Int) {
        outgoing.removeFirst(min(count, outgoing.count))
    }

    package mutating func receive(_ bytes: [UInt8]) -> Progress {
        receivedTotal += bytes.count
        guard receivedTotal <= Self.maximumBytes else {
            return failed("the \(dialogue.displayName) server sent more than \(Self.maximumBytes / 1024) KiB before TLS")
        }
        pending += bytes
        switch dialogue {
        case .smtp: return smtp()
        case .imap: return imap()
        case .xmpp: return xmpp()
        case .postgres: return postgres()
        }
    }

    // MARK: SMTP (RFC 3207)

    private mutating func smtp() -> Progress {
        while true {
            let (read, otherwise) = nextLine()
            guard let line = read else { return otherwise }
            lines.append(line)
            let bytes = Array(line.utf8)
            guard bytes.count >= 3, bytes[0..<3].allSatisfy({ (0x30...0x39).contains($0) }) else {
                return failed("not an SMTP server (it said: \(Self.quote(lines)))")
            }
            // "250-…" continues the reply; "250 …" or a bare "250" ends it.
            if bytes.count > 3, bytes[3] == UInt8(ascii: "-") { continue }
            let code = String(line.prefix(3))
            let reply = lines
            lines = []
            switch stage {
            case .smtpGreeting:
                guard code == "220" else { return failed("the SMTP server refused the connection (greeting: \(Self.quote(reply)))") }
                outgoing += Array("EHLO pinwatch.invalid\r\n".utf8)
                stage = .smtpHello
            case .smtpHello:
                guard code == "250" else { return failed("the SMTP server refused EHLO (\(Self.quote(reply)))") }
                let offered = reply.dropFirst().contains { Self.firstWord(String($0.dropFirst(4))) == "STARTTLS" }
                guard offered else { return failed("the SMTP server did not offer STARTTLS (EHLO reply: \(Self.quote(reply)))") }
                outgoing += Array("STARTTLS\r\n".utf8)
                stage = .smtpStartTLS
            default:
                guard code == "220" else { return failed("the SMTP server refused STARTTLS (\(Self.quote(reply)))") }
                return .established
            }
        }
    }

    // MARK: IMAP (RFC 3501 §6.2.1)

    private mutating func imap() -> Progress {
        while true {
            let (read, otherwise) = nextLine()
            guard let line = read else { return otherwise }
            let words = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            let upper = words.map { $0.uppercased() }
            switch stage {
            case .imapGreeting:
                guard upper.first == "*", upper.count >= 2 else {
                    return failed("not an IMAP server (greeting: \(Self.quote([line])))")
                }
                switch upper[1] {
                case "OK":
                    if let announced = Self.bracketedCapabilities(upper) {
                        lines = announced
                        return askForTLSIfOffered(greeting: line)
                    }
                    outgoing += Array("A1 CAPABILITY\r\n".utf8)
                    stage = .imapCapability
                case "PREAUTH":
                    return failed("the IMAP server logged the connection in before TLS (greeting: \(Self.quote([line])))")
                default:
                    return failed("the IMAP server refused the connection (greeting: \(Self.quote([line])))")
                }
            case .imapCapability:
                if upper.first == "*" {
                    if upper.count >= 2, upper[1] == "CAPABILITY" { lines += upper.dropFirst(2) }
                    continue
                }
                if let wrong = Self.wrongTag(upper, expected: "A1", command: "CAPABILITY") { return failed(wrong) }
                guard upper.count >= 2, upper[1] == "OK" else {
                    return failed("the IMAP server refused CAPABILITY (\(Self.quote([line])))")
                }
                return askForTLSIfOffered(greeting: nil)
            default:
                if upper.first == "*" { continue }
                if let wrong = Self.wrongTag(upper, expected: "A2", command: "STARTTLS") { return failed(wrong) }
                guard upper.count >= 2, upper[1] == "OK" else {
                    return failed("the IMAP server refused STARTTLS (\(Self.quote([line])))")
                }
                return .established
            }
        }
    }

    private mutating func askForTLSIfOffered(greeting: String?) -> Progress {
        guard lines.contains("STARTTLS") else {
            let shown = greeting.map { "greeting: \(Self.quote([$0]))" } ?? "capabilities: \(Self.quote([lines.joined(separator: " ")]))"
            return failed("the IMAP server did not offer STARTTLS (\(shown))")
        }
        lines = []
        outgoing += Array("A2 STARTTLS\r\n".utf8)
        stage = .imapStartTLS
        return imap()
    }

    /// Only untagged (`*`) lines may come before the answer to our one
    /// command, whose tag we chose: any other line (another tag, a `+`
    /// continuation) answers nothing we asked, and waiting on would only
    /// end at the timeout.
    private static func wrongTag(_ upper: [String], expected: String, command: String) -> String? {
        guard let tag = upper.first, tag != expected else { return nil }
        return "the IMAP server answered \(command) with tag \(quote([String(tag.prefix(40))])) (it was sent as \(expected))"
    }

    /// `* OK [CAPABILITY IMAP4rev1 STARTTLS] ready`: the capabilities, or nil.
    private static func bracketedCapabilities(_ upper: [String]) -> [String]? {
        guard upper.count >= 3, upper[2] == "[CAPABILITY" else { return nil }
        var capabilities: [String] = []
        for word in upper.dropFirst(3) {
            if word.hasSuffix("]") {
                capabilities.append(String(word.dropLast()))
                return capabilities
            }
            capabilities.append(word)
        }
        return capabilities
    }

    // MARK: XMPP (RFC 6120 §5)

    private mutating func xmpp() -> Progress {
        let text = String(decoding: pending, as: UTF8.self)
        if let forbidden = Self.forbiddenXMPPMarkup(text) {
            return failed("the XMPP server sent \(forbidden), which RFC 6120 forbids in a stream")
        }
        if let error = text.range(of: "<stream:error") {
            return failed("the XMPP server closed the stream with \(Self.describeStreamError(text[error.upperBound...]))")
        }
        if text.contains("</stream:stream>") {
            return failed("the XMPP server closed the stream before TLS")
        }
        switch stage {
        case .xmppFeatures:
            guard let end = text.range(of: "</stream:features>") ?? text.range(of: "<stream:features/>") else {
                return pendingWithinLimit()
            }
            let features = String(text[..<end.upperBound])
            guard features.contains("<starttls"), features.contains("urn:ietf:params:xml:ns:xmpp-tls") else {
                let shown = features.range(of: "<stream:features").map { String(features[$0.lowerBound...]) } ?? features
                return failed("the XMPP server did not offer STARTTLS (features: \(Self.quote([shown])))")
            }
            pending = Array(text[end.upperBound...].utf8)
            outgoing += Array("<starttls xmlns='urn:ietf:params:xml:ns:xmpp-tls'/>".utf8)
            stage = .xmppProceed
            return xmpp()
        default:
            if text.contains("<proceed") { return .established }
            // <failure/> carries nothing (RFC 6120 §5.4.2.2): said in our
            // words, not the server's markup.
            if text.contains("<failure") { return failed("the XMPP server refused STARTTLS (it answered <failure/>)") }
            return pendingWithinLimit()
        }
    }

    /// What RFC 6120 §11.1 keeps out of a stream: comments, DTDs (and any
    /// other `<!` declaration), processing instructions past the XML
    /// declaration. A `<starttls/>` inside a comment is not an offer, and a
    /// DTD is where entity tricks start; neither is looked into.
    private static func forbiddenXMPPMarkup(_ text: String) -> String? {
        if text.contains("<!--") { return "an XML comment" }
        if text.contains("<!DOCTYPE") || text.contains("<!doctype") { return "a DTD (<!DOCTYPE)" }
        if text.contains("<!") { return "a markup declaration (<!…)" }
        // The XML declaration may open the stream (and arrive in pieces).
        var rest = Substring(text)
        let declaration = "<?xml "
        if rest.count < declaration.count, declaration.hasPrefix(rest) { return nil }
        if rest.hasPrefix(declaration) {
            guard let close = rest.firstIndex(of: ">") else { return nil }
            rest = rest[rest.index(after: close)...]
        }
        return rest.contains("<?") ? "a processing instruction (<?…?>)" : nil
    }

    /// `<stream:error><host-unknown xmlns=…/></stream:error>`: the
    /// condition's name (letters and `-`, as RFC 6120 §4.9.3 defines them),
    /// not the server's markup.
    private static func describeStreamError(_ after: Substring) -> String {
        guard let open = after.firstIndex(of: ">") else { return "an error" }
        let rest = after[after.index(after: open)...].drop { $0 == " " || $0 == "\r" || $0 == "\n" || $0 == "\t" }
        guard rest.first == "<" else { return "an error" }
        let name = rest.dropFirst().prefix { ($0.isASCII && $0.isLetter) || $0 == "-" }.prefix(40)
        return name.isEmpty ? "an error" : "the error \(name)"
    }

    private func pendingWithinLimit() -> Progress {
        pending.count > Self.maximumLineBytes * 4
            ? failed("the XMPP server sent more than \(Self.maximumLineBytes * 4 / 1024) KiB without its stream features")
            : .needMore
    }

    // MARK: PostgreSQL (SSLRequest)

    private func postgres() -> Progress {
        guard let answer = pending.first else { return .needMore }
        switch answer {
        case UInt8(ascii: "S"):
            return .established
        case UInt8(ascii: "N"):
            return failed("the PostgreSQL server does not accept TLS (it answered N to the SSLRequest)")
        case UInt8(ascii: "E"):
            return failed("the PostgreSQL server answered the SSLRequest with an error (a server older than 7.2, or not PostgreSQL)")
        default:
            return failed("not a PostgreSQL server (it answered the SSLRequest with byte 0x\(String(answer, radix: 16)))")
        }
    }

    // MARK: Lines and words

    /// The next CRLF- (or LF-) ended line; without one, what to answer
    /// meanwhile: wait for more, or give up on a line past the limit.
    private mutating func nextLine() -> (line: String?, otherwise: Progress) {
        guard let end = pending.firstIndex(of: 0x0A) else {
            return (nil, pending.count > Self.maximumLineBytes ? lineTooLong : .needMore)
        }
        guard end <= Self.maximumLineBytes else { return (nil, lineTooLong) }
        var line = Array(pending[..<end])
        pending.removeFirst(end + 1)
        if line.last == 0x0D { line.removeLast() }
        return (String(decoding: line, as: UTF8.self), .needMore)
    }

    private var lineTooLong: Progress {
        failed("the \(dialogue.displayName) server sent a line longer than \(Self.maximumLineBytes / 1024) KiB")
    }

    private static func firstWord(_ text: String) -> String {
        text.split(separator: " ", maxSplits: 1).first.map { $0.uppercased() } ?? ""
    }

    /// The server's words, one line, sanitised and shortened.
    static func quote(_ lines: [String]) -> String {
        let joined = TerminalText.sanitize(lines.joined(separator: " | "))
        return joined.count > quotedCharacters ? String(joined.prefix(quotedCharacters)) + "…" : joined
    }

    private func failed(_ message: String) -> Progress {
        .failed("starttls: " + message)
    }
}
