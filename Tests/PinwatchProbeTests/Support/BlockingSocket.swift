import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// A blocking client socket to 127.0.0.1 for tests, with receive and send
/// timeouts so that no test can hang on a silent peer.
final class BlockingSocket {
    let descriptor: Int32
    private var isClosed = false

    enum Failure: Error, CustomStringConvertible {
        case call(String, Int32)
        var description: String {
            switch self {
            case .call(let name, let code): return "\(name): \(String(cString: strerror(code)))"
            }
        }
    }

    /// Connects to 127.0.0.1:`port`; throws `.call("connect", errno)` when refused.
    init(port: Int, timeout: TimeInterval = 5) throws {
        // Test clients write with plain send(); a peer that hung up must
        // give EPIPE, not kill the test process.
        signal(SIGPIPE, SIG_IGN)
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure.call("socket", errno) }
        var limit = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1_000_000))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let code = errno
            Glibc.close(descriptor)
            throw Failure.call("connect", code)
        }
    }

    deinit { close() }

    func close() {
        guard !isClosed else { return }
        isClosed = true
        Glibc.close(descriptor)
    }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, 0) }
            guard sent > 0 else { throw Failure.call("send", errno) }
            offset += sent
        }
    }

    enum ReadOutcome: Equatable {
        case bytes([UInt8])
        case endOfStream
        case timedOut
        case failed(Int32)
    }

    func readSome(maximum: Int = 65536) -> ReadOutcome {
        var buffer = [UInt8](repeating: 0, count: maximum)
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        if count > 0 { return .bytes(Array(buffer[..<count])) }
        if count == 0 { return .endOfStream }
        if errno == EAGAIN || errno == EWOULDBLOCK { return .timedOut }
        return .failed(errno)
    }

    /// Everything until the peer closes (bounded by the receive timeout).
    func readToEnd(limit: Int = 1 << 20) -> (bytes: [UInt8], outcome: ReadOutcome) {
        var collected: [UInt8] = []
        while collected.count < limit {
            let outcome = readSome()
            guard case .bytes(let chunk) = outcome else { return (collected, outcome) }
            collected += chunk
        }
        return (collected, .bytes([]))
    }

    /// Reads one byte at a time up to CRLF CRLF, so that nothing after an
    /// HTTP head (the TLS stream of a tunnel) is consumed.
    func readHTTPHead(limit: Int = 16384) -> String? {
        var head: [UInt8] = []
        var byte: UInt8 = 0
        while head.count < limit {
            guard recv(descriptor, &byte, 1, 0) == 1 else { return nil }
            head.append(byte)
            if head.count >= 4, head.suffix(4) == [13, 10, 13, 10] {
                return String(decoding: head, as: UTF8.self)
            }
        }
        return nil
    }
}

/// Polls `condition` until it holds or `timeout` passes: waits for the
/// server's loop thread to catch up without asserting any timing.
func eventually(timeout: TimeInterval = 5, _ condition: () -> Bool) -> Bool {
    let end = Date().addingTimeInterval(timeout)
    while Date() < end {
        if condition() { return true }
        usleep(10_000)
    }
    return condition()
}
