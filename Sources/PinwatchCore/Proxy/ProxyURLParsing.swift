import Foundation

/// Why a proxy URL was rejected.
public struct ProxyURLError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}

extension ProxyRoute {
    /// Parses `scheme://[user[:password]@]host[:port][/]` for the schemes
    /// the probe can tunnel through.
    ///
    /// Without a scheme the URL is `http://`, as curl reads `http_proxy`.
    /// Error messages never repeat the URL, since it may hold a password.
    public static func parse(url: String, source: String) throws(ProxyURLError) -> ProxyRoute {
        var rest = Substring(url.trimmingWhitespace())
        var scheme = Scheme.http
        if let separator = rest.range(of: "://") {
            let name = rest[..<separator.lowerBound].lowercased()
            switch name {
            case "http": scheme = .http
            case "socks5": scheme = .socks5
            case "socks5h": scheme = .socks5h
            case "https": throw ProxyURLError("https:// proxies are not supported (use http:// or socks5://)")
            default: throw ProxyURLError("unsupported proxy scheme (expected http://, socks5:// or socks5h://)")
            }
            rest = rest[separator.upperBound...]
        }
        if let slash = rest.firstIndex(of: "/") {
            guard rest[slash...].allSatisfy({ $0 == "/" }) else {
                throw ProxyURLError("a proxy URL has no path")
            }
            rest = rest[..<slash]
        }
        var username: String?
        var password: String?
        if let at = rest.lastIndex(of: "@") {
            let credentials = rest[..<at]
            rest = rest[rest.index(after: at)...]
            if let colon = credentials.firstIndex(of: ":") {
                username = String(credentials[..<colon]).removingPercentEncoding
                password = String(credentials[credentials.index(after: colon)...]).removingPercentEncoding
            } else {
                username = String(credentials).removingPercentEncoding
            }
        }
        let (host, portText) = try splitHostPort(rest)
        guard !host.isEmpty else { throw ProxyURLError("proxy URL has no host") }
        var port = scheme == .http ? 80 : 1080
        if let portText {
            guard let value = Int(portText), (1...65_535).contains(value) else {
                // Without an `@`, `user:password` reads as host:port: the
                // "port" may be a password, so it is never repeated.
                throw ProxyURLError("bad proxy port (expected a number 1–65535) in \(redacted(url))")
            }
            port = value
        }
        return ProxyRoute(scheme: scheme, host: host, port: port, username: username, password: password, source: source)
    }

    /// The URL as it may be shown: the scheme, then `***` for everything
    /// else, since a URL that failed to parse cannot say which part of it
    /// is a credential.
    public static func redacted(_ url: String) -> String {
        let trimmed = url.trimmingWhitespace()
        guard let separator = trimmed.range(of: "://") else { return "***" }
        let scheme = trimmed[..<separator.lowerBound].lowercased()
        return ["http", "socks5", "socks5h", "https"].contains(scheme) ? "\(scheme)://***" : "***"
    }

    /// `host`, `host:port`, `[v6]`, `[v6]:port`.
    private static func splitHostPort(_ text: Substring) throws(ProxyURLError) -> (String, String?) {
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw ProxyURLError("unclosed [ in proxy host") }
            let host = String(text[text.index(after: text.startIndex)..<close])
            let after = text[text.index(after: close)...]
            if after.isEmpty { return (host, nil) }
            guard after.hasPrefix(":") else { throw ProxyURLError("unexpected text after proxy host") }
            return (host, String(after.dropFirst()))
        }
        guard let colon = text.lastIndex(of: ":") else { return (String(text), nil) }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }
}
