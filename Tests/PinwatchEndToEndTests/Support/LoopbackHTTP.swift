import Foundation
import Glibc

/// A minimal HTTP/1.1 GET over a loopback socket, for talking to `serve`
/// and to a test's own Prometheus without any HTTP client library.
enum LoopbackHTTP {
    struct Response {
        var status: Int
        var body: String
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// `pathAndQuery` goes on the request line as is (percent-encode it).
    static func get(port: Int, _ pathAndQuery: String, timeout: TimeInterval = 10) throws -> Response {
        let connection = try Connection(port: port, timeout: timeout)
        defer { connection.close() }
        try connection.send(pathAndQuery)
        return try connection.receive(timeout: timeout)
    }

    /// One connection: opened, a request sent, the response read; split so
    /// a test can hold many open at once.
    final class Connection {
        /// -1 once closed.
        private(set) var descriptor: Int32

        /// From `source` (another loopback address, as a second client
        /// would be) when given, else from whatever address the kernel picks.
        init(port: Int, timeout: TimeInterval = 10, source: String? = nil) throws {
            self.port = port
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            self.descriptor = descriptor
            guard descriptor >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
            var limit = timeval(tv_sec: Int(timeout), tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            if let source {
                var local = sockaddr_in()
                local.sin_family = sa_family_t(AF_INET)
                inet_pton(AF_INET, source, &local.sin_addr)
                let bound = withUnsafePointer(to: &local) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
                }
                guard bound == 0 else {
                    let reason = String(cString: strerror(errno))
                    Glibc.close(descriptor)
                    throw Failure(description: "bind to \(source): \(reason)")
                }
            }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                let reason = String(cString: strerror(errno))
                Glibc.close(descriptor)
                throw Failure(description: "connect to 127.0.0.1:\(port): \(reason)")
            }
        }

        private let port: Int

        /// `keepAlive` leaves the connection open for another request.
        func send(_ pathAndQuery: String, keepAlive: Bool = false) throws {
            let close = keepAlive ? "" : "Connection: close\r\n"
            let request = Array("GET \(pathAndQuery) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\(close)\r\n".utf8)
            var sent = 0
            while sent < request.count {
                let count = request[sent...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard count > 0 else { throw Failure(description: "send: \(String(cString: strerror(errno)))") }
                sent += count
            }
        }

        func receive(timeout: TimeInterval) throws -> Response {
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65_536)
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                let count = recv(descriptor, &buffer, buffer.count, 0)
                if count <= 0 { break }
                received += buffer.prefix(count)
                if let response = LoopbackHTTP.complete(received) { return response }
            }
            guard let response = LoopbackHTTP.parse(received) else {
                throw Failure(description: "no HTTP response from 127.0.0.1:\(port)")
            }
            return response
        }

        /// Whether the peer closes the connection within `timeout`, reading
        /// and dropping whatever it sends before.
        func closedByPeer(within timeout: TimeInterval) -> Bool {
            var buffer = [UInt8](repeating: 0, count: 4_096)
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                let ready = poll(&poller, 1, Int32(max(1, deadline.timeIntervalSinceNow * 1_000)))
                guard ready > 0 else { continue }
                let count = recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                if count == 0 || (count < 0 && errno != EAGAIN && errno != EINTR) { return true }
            }
            return false
        }

        /// Safe to call twice: the number may belong to another file by then.
        func close() {
            guard descriptor >= 0 else { return }
            Glibc.close(descriptor)
            descriptor = -1
        }
    }

    /// A response whose Content-Length says it is all here.
    fileprivate static func complete(_ bytes: [UInt8]) -> Response? {
        guard let response = parse(bytes), let headerEnd = bytes.firstRange(of: Array("\r\n\r\n".utf8)) else { return nil }
        let head = String(decoding: bytes[..<headerEnd.lowerBound], as: UTF8.self).lowercased()
        guard let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
            let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
        else { return nil }
        return bytes.count - headerEnd.upperBound >= length ? response : nil
    }

    fileprivate static func parse(_ bytes: [UInt8]) -> Response? {
        guard let headerEnd = bytes.firstRange(of: Array("\r\n\r\n".utf8)) else { return nil }
        let head = String(decoding: bytes[..<headerEnd.lowerBound], as: UTF8.self)
        let parts = head.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, let status = Int(parts[1]) else { return nil }
        return Response(status: status, body: String(decoding: bytes[headerEnd.upperBound...], as: UTF8.self))
    }
}
