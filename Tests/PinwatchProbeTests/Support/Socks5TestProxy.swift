import Foundation
import Glibc

/// A small SOCKS5 proxy on 127.0.0.1 for the engine's SOCKS tests: no-auth
/// or username/password, CONNECT to IPv4 or to a name from `names` (its
/// private DNS), then a relay. Blocking threads are fine at this size;
/// every wait is bounded by `poll` timeouts and a per-connection deadline.
final class Socks5TestProxy: @unchecked Sendable {
    struct Request: Equatable {
        /// The requested host as sent: an IPv4 literal or a name.
        var host: String
        var port: Int
        var sentName: Bool
    }

    let port: Int
    private let listener: Int32
    private let names: [String: String]
    private let credentials: (user: String, password: String)?
    private let lock = NSLock()
    private var stopped = false
    private var recorded: [Request] = []

    init(names: [String: String] = [:], credentials: (user: String, password: String)? = nil) throws {
        self.names = names
        self.credentials = credentials
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = Self.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && listen(descriptor, 64) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard descriptor >= 0, ok else {
            if descriptor >= 0 { close(descriptor) }
            throw POSIXError(.EADDRINUSE)
        }
        listener = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread { [self] in acceptLoop() }.start()
    }

    deinit { stop() }

    var requests: [Request] {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }

    func stop() {
        lock.lock()
        stopped = true
        lock.unlock()
    }

    private var isStopped: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopped
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = in_addr_t(UInt32(0x7F00_0001).bigEndian)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return address
    }

    private func acceptLoop() {
        defer { close(listener) }
        while !isStopped {
            var entry = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 100) > 0 else { continue }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            Thread { [self] in
                serve(client)
                close(client)
            }.start()
        }
    }

    /// Reads exactly `count` bytes within the connection's deadline.
    private func read(_ descriptor: Int32, _ count: Int, until deadline: Date) -> [UInt8]? {
        var bytes: [UInt8] = []
        while bytes.count < count, Date() < deadline {
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 100) > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: count - bytes.count)
            let got = recv(descriptor, &buffer, buffer.count, 0)
            guard got > 0 else { return nil }
            bytes += buffer.prefix(got)
        }
        return bytes.count == count ? bytes : nil
    }

    private func write(_ descriptor: Int32, _ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    private func serve(_ client: Int32) {
        let deadline = Date().addingTimeInterval(10)
        guard let greeting = read(client, 2, until: deadline), greeting[0] == 5,
            let methods = read(client, Int(greeting[1]), until: deadline)
        else { return }
        if let credentials {
            guard methods.contains(2) else { return write(client, [5, 0xFF]) }
            write(client, [5, 2])
            guard let header = read(client, 2, until: deadline), let user = read(client, Int(header[1]), until: deadline),
                let passwordLength = read(client, 1, until: deadline),
                let password = read(client, Int(passwordLength[0]), until: deadline)
            else { return }
            let accepted =
                String(decoding: user, as: UTF8.self) == credentials.user
                && String(decoding: password, as: UTF8.self) == credentials.password
            write(client, [1, accepted ? 0 : 1])
            guard accepted else { return }
        } else {
            guard methods.contains(0) else { return write(client, [5, 0xFF]) }
            write(client, [5, 0])
        }
        guard let head = read(client, 4, until: deadline), head[0] == 5, head[1] == 1 else { return }
        let host: String
        let sentName: Bool
        switch head[3] {
        case 1:
            guard let ip = read(client, 4, until: deadline) else { return }
            host = ip.map(String.init).joined(separator: ".")
            sentName = false
        case 3:
            guard let length = read(client, 1, until: deadline), let name = read(client, Int(length[0]), until: deadline) else { return }
            host = String(decoding: name, as: UTF8.self)
            sentName = true
        default:
            return write(client, [5, 8, 0, 1, 0, 0, 0, 0, 0, 0])
        }
        guard let portBytes = read(client, 2, until: deadline) else { return }
        let port = Int(portBytes[0]) << 8 | Int(portBytes[1])
        lock.lock()
        recorded.append(Request(host: host, port: port, sentName: sentName))
        lock.unlock()

        guard (names[host] ?? host) == "127.0.0.1" else { return write(client, [5, 4, 0, 1, 0, 0, 0, 0, 0, 0]) }
        let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(upstream) }
        var address = Self.loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard connected else { return write(client, [5, 5, 0, 1, 0, 0, 0, 0, 0, 0]) }
        write(client, [5, 0, 0, 1, 127, 0, 0, 1, 0, 0])
        relay(client, upstream, until: deadline)
    }

    private func relay(_ first: Int32, _ second: Int32, until deadline: Date) {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while Date() < deadline {
            var entries = [pollfd(fd: first, events: Int16(POLLIN), revents: 0), pollfd(fd: second, events: Int16(POLLIN), revents: 0)]
            guard poll(&entries, 2, 100) >= 0 else { return }
            for (index, entry) in entries.enumerated() where entry.revents != 0 {
                let from = index == 0 ? first : second
                let to = index == 0 ? second : first
                let got = recv(from, &buffer, buffer.count, 0)
                guard got > 0 else { return }
                write(to, Array(buffer.prefix(got)))
            }
        }
    }
}
