import Foundation
import PinwatchCore

/// The bytes of a proxy handshake (HTTP CONNECT or SOCKS5), without any I/O:
/// the probe writes `outgoing`, feeds what it reads to `receive`, and
/// starts TLS once the exchange is `established`.
package struct ProxyExchange {
    package enum Progress: Equatable {
        case needMore
        case established
        case failed(String)
    }

    /// HTTP proxies answer with a header; anything longer is not a proxy.
    package static let maximumResponseBytes = 8 * 1024

    private enum Stage {
        case httpResponse
        case socksMethod
        case socksAuthentication
        case socksReply
    }

    package private(set) var outgoing: [UInt8]
    /// What the target sent right behind the proxy's answer, in the same
    /// read (an SMTP greeting): the start of a STARTTLS dialogue.
    package private(set) var surplus: [UInt8] = []
    private var received: [UInt8] = []
    /// Where the search for the header's end resumes: a proxy that sends
    /// one byte at a time must not make each byte rescan the whole header.
    private var headerScanStart = 0
    private var stage: Stage
    private let route: ProxyRoute
    private let targetHost: String
    private let targetPort: Int

    /// `targetHost` is a name or an IP literal; for plain `socks5` the
    /// caller passes the locally resolved IP.
    package init(route: ProxyRoute, targetHost: String, targetPort: Int) {
        self.route = route
        self.targetHost = targetHost
        self.targetPort = targetPort
        switch route.scheme {
        case .http:
            let authority = targetHost.contains(":") ? "[\(targetHost)]:\(targetPort)" : "\(targetHost):\(targetPort)"
            var request = "CONNECT \(authority) HTTP/1.1\r\nHost: \(authority)\r\n"
            if let username = route.username {
                let credentials = Data("\(username):\(route.password ?? "")".utf8).base64EncodedString()
                request += "Proxy-Authorization: Basic \(credentials)\r\n"
            }
            request += "\r\n"
            outgoing = Array(request.utf8)
            stage = .httpResponse
        case .socks5, .socks5h:
            // Version 5, then the offered methods: 0 = none, 2 = username/password.
            outgoing = route.username == nil ? [5, 1, 0] : [5, 2, 0, 2]
            stage = .socksMethod
        }
    }

    package mutating func didSend(_ count: Int) {
        outgoing.removeFirst(min(count, outgoing.count))
    }

    package mutating func receive(_ bytes: [UInt8]) -> Progress {
        received += bytes
        switch stage {
        case .httpResponse: return httpResponse()
        case .socksMethod: return socksMethod()
        case .socksAuthentication: return socksAuthentication()
        case .socksReply: return socksReply()
        }
    }

    private mutating func httpResponse() -> Progress {
        let terminator: [UInt8] = [13, 10, 13, 10]
        guard let end = received[headerScanStart...].firstRange(of: terminator) else {
            headerScanStart = max(0, received.count - (terminator.count - 1))
            if received.count > Self.maximumResponseBytes {
                return .failed("proxy answer to CONNECT exceeds \(Self.maximumResponseBytes / 1024) KiB")
            }
            return .needMore
        }
        let header = String(decoding: received[..<end.lowerBound], as: UTF8.self)
        let statusLine = header.split(separator: "\r\n", maxSplits: 1).first.map(String.init) ?? ""
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let code = Int(parts[1]) else {
            return .failed("proxy did not answer CONNECT with HTTP")
        }
        guard (200..<300).contains(code) else {
            // The reason phrase comes from the proxy: one line of printable
            // characters at most, whatever it sent.
            let reason = statusLine.dropFirst(parts[0].count + 1).unicodeScalars
                .filter { !TerminalText.isControl($0) }.prefix(120)
            return .failed("proxy refused CONNECT: \(String(String.UnicodeScalarView(reason)))")
        }
        surplus = Array(received[end.upperBound...])
        return .established
    }

    private mutating func socksMethod() -> Progress {
        guard received.count >= 2 else { return .needMore }
        guard received[0] == 5 else { return .failed("not a SOCKS5 proxy") }
        let method = received[1]
        received.removeFirst(2)
        switch method {
        case 0:
            return sendConnectRequest()
        case 2 where route.username != nil:
            let user = Array((route.username ?? "").utf8.prefix(255))
            let password = Array((route.password ?? "").utf8.prefix(255))
            outgoing += [1, UInt8(user.count)] + user + [UInt8(password.count)] + password
            stage = .socksAuthentication
            return .needMore
        default:
            return .failed("SOCKS5 proxy accepts none of the offered authentication methods")
        }
    }

    private mutating func socksAuthentication() -> Progress {
        guard received.count >= 2 else { return .needMore }
        guard received[1] == 0 else { return .failed("SOCKS5 proxy rejected the credentials") }
        received.removeFirst(2)
        return sendConnectRequest()
    }

    private mutating func sendConnectRequest() -> Progress {
        var request: [UInt8] = [5, 1, 0]
        if let address = SocketAddress.numeric(targetHost, port: targetPort) {
            request += address.family == AF_INET ? [1] : [4]
            request += Self.addressBytes(address)
        } else {
            let name = Array(targetHost.utf8)
            guard name.count <= 255 else { return .failed("host name too long for SOCKS5") }
            request += [3, UInt8(name.count)] + name
        }
        request += [UInt8(targetPort >> 8 & 0xFF), UInt8(targetPort & 0xFF)]
        outgoing += request
        stage = .socksReply
        return .needMore
    }

    private mutating func socksReply() -> Progress {
        guard received.count >= 5 else { return .needMore }
        guard received[0] == 5 else { return .failed("malformed SOCKS5 reply") }
        guard received[1] == 0 else { return .failed("SOCKS5 proxy refused the connection: \(Self.socksReason(received[1]))") }
        let addressLength: Int
        switch received[3] {
        case 1: addressLength = 4
        case 4: addressLength = 16
        case 3: addressLength = 1 + Int(received[4])
        default: return .failed("malformed SOCKS5 reply")
        }
        guard received.count >= 4 + addressLength + 2 else { return .needMore }
        surplus = Array(received[(4 + addressLength + 2)...])
        return .established
    }

    private static func addressBytes(_ address: SocketAddress) -> [UInt8] {
        address.withSockaddr { pointer, _ in
            let raw = UnsafeRawPointer(pointer)
            if address.family == AF_INET {
                let offset = MemoryLayout<sockaddr_in>.offset(of: \sockaddr_in.sin_addr) ?? 4
                return Array(UnsafeRawBufferPointer(start: raw + offset, count: 4))
            }
            let offset = MemoryLayout<sockaddr_in6>.offset(of: \sockaddr_in6.sin6_addr) ?? 8
            return Array(UnsafeRawBufferPointer(start: raw + offset, count: 16))
        }
    }

    private static func socksReason(_ code: UInt8) -> String {
        switch code {
        case 1: return "general failure"
        case 2: return "not allowed by ruleset"
        case 3: return "network unreachable"
        case 4: return "host unreachable"
        case 5: return "connection refused"
        case 6: return "TTL expired"
        case 7: return "command not supported"
        case 8: return "address type not supported"
        default: return "error \(code)"
        }
    }
}
