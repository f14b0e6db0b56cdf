import Foundation
import Glibc
import PinwatchProbe

/// A small SOCKS5 proxy on 127.0.0.1 for the engine's SOCKS tests: no-auth
/// or username/password, CONNECT to IPv4 or to a name from `names` (its
/// private DNS), then a relay. A thread per connection is fine at this
/// size; every wait is bounded by `poll` timeouts and a per-connection
/// deadline.
final class Socks5TestProxy: @unchecked Sendable {
    struct Request: Equatable {
        /// The requested host as sent: an IPv4 literal or a name.
        var host: String
        var port: Int
        var sentName: Bool
    }

    let port: Int
    private let listener: Socket
    private let names: [String: String]
    private let credentials: (user: String, password: String)?
    private let lock = NSLock()
    private var stopped = false
    private var recorded: [Request] = []

    init(names: [String: String] = [:], credentials: (user: String, password: String)? = nil) throws {
        self.names = names
        self.credentials = credentials
        (listener, port) = try Socket.listen(backlog: 64)
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

    /// Waits up to 100 ms for `events` on `socket`.
    private static func ready(_ socket: Socket, for events: Int16) -> Bool {
        var entry = pollfd(fd: socket.descriptor, events: events, revents: 0)
        return poll(&entry, 1, 100) > 0
    }

    private func acceptLoop() {
        defer { listener.close() }
        while !isStopped {
            guard Self.ready(listener, for: Int16(POLLIN)), let client = listener.accept() else { continue }
            Thread { [self] in
                serve(client, until: Date().addingTimeInterval(10))
                client.close()
            }.start()
        }
    }

    /// Reads exactly `count` bytes within the connection's deadline.
    private func read(_ socket: Socket, _ count: Int, until deadline: Date) -> [UInt8]? {
        var bytes: [UInt8] = []
        while bytes.count < count, Date() < deadline {
            guard Self.ready(socket, for: Int16(POLLIN)) else { continue }
            var buffer = [UInt8](repeating: 0, count: count - bytes.count)
            switch socket.read(into: &buffer) {
            case .bytes(let got): bytes += buffer.prefix(got)
            case .wouldBlock: continue
            case .endOfStream, .failed: return nil
            }
        }
        return bytes.count == count ? bytes : nil
    }

    /// Writes all of `bytes` within the connection's deadline; false when it could not.
    @discardableResult
    private func write(_ socket: Socket, _ bytes: [UInt8], until deadline: Date) -> Bool {
        var rest = bytes[...]
        while !rest.isEmpty, Date() < deadline {
            switch socket.write(rest) {
            case .bytes(let sent): rest = rest.dropFirst(sent)
            case .wouldBlock: _ = Self.ready(socket, for: Int16(POLLOUT))
            case .failed: return false
            }
        }
        return rest.isEmpty
    }

    /// One SOCKS reply; a client that does not take it is gone anyway.
    private func answer(_ client: Socket, _ bytes: [UInt8], until deadline: Date) {
        write(client, bytes, until: deadline)
    }

    private func serve(_ client: Socket, until deadline: Date) {
        guard let greeting = read(client, 2, until: deadline), greeting[0] == 5,
            let methods = read(client, Int(greeting[1]), until: deadline)
        else { return }
        if let credentials {
            guard methods.contains(2) else { return answer(client, [5, 0xFF], until: deadline) }
            answer(client, [5, 2], until: deadline)
            guard let header = read(client, 2, until: deadline), let user = read(client, Int(header[1]), until: deadline),
                let passwordLength = read(client, 1, until: deadline),
                let password = read(client, Int(passwordLength[0]), until: deadline)
            else { return }
            let accepted =
                String(decoding: user, as: UTF8.self) == credentials.user
                && String(decoding: password, as: UTF8.self) == credentials.password
            answer(client, [1, accepted ? 0 : 1], until: deadline)
            guard accepted else { return }
        } else {
            guard methods.contains(0) else { return answer(client, [5, 0xFF], until: deadline) }
            answer(client, [5, 0], until: deadline)
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
            return answer(client, [5, 8, 0, 1, 0, 0, 0, 0, 0, 0], until: deadline)
        }
        guard let portBytes = read(client, 2, until: deadline) else { return }
        let port = Int(portBytes[0]) << 8 | Int(portBytes[1])
        lock.lock()
        recorded.append(Request(host: host, port: port, sentName: sentName))
        lock.unlock()

        guard (names[host] ?? host) == "127.0.0.1", let address = SocketAddress.numeric("127.0.0.1", port: port) else {
            return answer(client, [5, 4, 0, 1, 0, 0, 0, 0, 0, 0], until: deadline)
        }
        guard let upstream = try? Socket.connecting(to: address).socket else {
            return answer(client, [5, 5, 0, 1, 0, 0, 0, 0, 0, 0], until: deadline)
        }
        defer { upstream.close() }
        while !Self.ready(upstream, for: Int16(POLLOUT)), Date() < deadline {}
        guard upstream.pendingError == 0, upstream.hasPeer else { return answer(client, [5, 5, 0, 1, 0, 0, 0, 0, 0, 0], until: deadline) }
        answer(client, [5, 0, 0, 1, 127, 0, 0, 1, 0, 0], until: deadline)
        relay(client, upstream, until: deadline)
    }

    private func relay(_ first: Socket, _ second: Socket, until deadline: Date) {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while Date() < deadline {
            var entries = [first, second].map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
            guard poll(&entries, 2, 100) >= 0 else { return }
            for (index, entry) in entries.enumerated() where entry.revents != 0 {
                let (from, to) = index == 0 ? (first, second) : (second, first)
                switch from.read(into: &buffer) {
                case .bytes(let got):
                    guard write(to, Array(buffer.prefix(got)), until: deadline) else { return }
                case .wouldBlock: continue
                case .endOfStream, .failed: return
                }
            }
        }
    }
}
