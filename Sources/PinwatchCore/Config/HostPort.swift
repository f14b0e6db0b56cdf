/// `host`, `host:port`, `[v6]`, `[v6]:port`, or a bare IPv6 literal: how a
/// user names one endpoint on a command line or in a `/probe` query.
public struct HostPort: Equatable, Sendable {
    public struct ParseError: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    public var host: String
    public var port: Int
    /// False when `port` is the default because the text named none.
    public var portWasWritten = false

    /// Longer than any host name (253) plus a port: the rest is not a target.
    public static let maximumLength = 270

    public init(parsing text: String, defaultPort: Int = 443) throws(ParseError) {
        let trimmed = text.trimmingWhitespace()
        // Only an error quotes the text: sanitising it for every host of a
        // configuration was most of the parsing.
        var quoted: String { EchoedInput.quoted(text) }
        // Counting characters walks grapheme clusters; the byte count is
        // an upper bound of it and free.
        guard trimmed.utf8.count <= Self.maximumLength || trimmed.count <= Self.maximumLength else {
            throw ParseError(description: "\(quoted): longer than \(Self.maximumLength) characters")
        }
        func port(_ digits: Substring) throws(ParseError) -> Int {
            // Digits only, as written by anyone meaning a port: `Int` would
            // also take `+443`, and `0443` reads as octal elsewhere.
            guard digits.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }), digits.first != "0",
                let value = Int(digits), (1...65535).contains(value)
            else {
                throw ParseError(
                    description: "\(quoted): the port \(EchoedInput.quoted(String(digits))) must be a number from 1 to 65535 "
                        + "(digits only, no sign or leading zero)")
            }
            return value
        }
        if trimmed.hasPrefix("[") {
            guard let close = trimmed.firstIndex(of: "]") else { throw ParseError(description: "\(quoted): missing ']'") }
            host = String(trimmed[trimmed.index(after: trimmed.startIndex)..<close])
            let rest = trimmed[trimmed.index(after: close)...]
            if rest.isEmpty {
                self.port = defaultPort
            } else if rest.hasPrefix(":") {
                self.port = try port(rest.dropFirst())
                portWasWritten = true
            } else {
                throw ParseError(description: "\(quoted): expected ':port' after ']'")
            }
        } else if trimmed.utf8.lazy.filter({ $0 == UInt8(ascii: ":") }).count > 1 {
            host = trimmed
            self.port = defaultPort
        } else if let colon = trimmed.utf8.lastIndex(of: UInt8(ascii: ":")) {
            host = String(trimmed[..<colon])
            self.port = try port(trimmed[trimmed.index(after: colon)...])
            portWasWritten = true
        } else {
            host = trimmed
            self.port = defaultPort
        }
        guard !host.isEmpty else { throw ParseError(description: "\(quoted): the host is empty") }
        if let problem = HostNameCheck.problem(host) { throw ParseError(description: problem) }
    }
}
