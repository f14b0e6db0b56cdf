import Foundation
import PinwatchProbe

/// The parsed head of an HTTP request sent to the CONNECT proxy.
struct ConnectRequestHead {
    var method: String
    /// The request target as sent (`host:port` for CONNECT).
    var target: String
    /// The Proxy-Authorization value, if the header was present.
    var proxyAuthorization: String?

    /// The end of a request head; the proxy reads up to it and no further.
    static let terminator: [UInt8] = Array("\r\n\r\n".utf8)

    /// Parses a head ending in CRLF CRLF; nil when it is not HTTP/1.x.
    init?(_ bytes: ArraySlice<UInt8>) {
        let text = String(decoding: bytes, as: UTF8.self)
        var lines = text.components(separatedBy: "\r\n")
        guard !lines.isEmpty else { return nil }
        let requestLine = lines.removeFirst().split(separator: " ", omittingEmptySubsequences: true)
        guard requestLine.count == 3, requestLine[2].hasPrefix("HTTP/1.") else { return nil }
        method = String(requestLine[0])
        target = String(requestLine[1])
        proxyAuthorization = nil
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces)
            if name.caseInsensitiveCompare("Proxy-Authorization") == .orderedSame {
                proxyAuthorization = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
    }

    /// Splits `host:port` or `[v6]:port`.
    static func hostAndPort(_ target: String) -> (host: String, port: Int)? {
        guard let colon = target.lastIndex(of: ":"), let port = Int(target[target.index(after: colon)...]),
            (1...65535).contains(port)
        else { return nil }
        var host = String(target[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
        }
        return host.isEmpty ? nil : (host, port)
    }
}
