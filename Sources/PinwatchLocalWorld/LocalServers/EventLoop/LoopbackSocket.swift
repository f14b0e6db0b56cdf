import Foundation
import PinwatchProbe

#if canImport(Glibc)
import Glibc
#endif

/// The non-blocking socket calls the local servers need, with errno turned
/// into values.
///
/// Every write uses MSG_NOSIGNAL: a peer that hangs up mid-write must cost
/// an EPIPE, never a SIGPIPE that kills the whole process.
package enum LoopbackSocket {
    package enum ReadResult {
        case bytes(Int)
        case wouldBlock
        case endOfStream
        case failed
    }

    package enum WriteResult {
        case bytes(Int)
        case wouldBlock
        case failed
    }

    /// A listening socket on 127.0.0.1, on `port` or (0) a kernel-chosen one.
    package static func listen(port: Int = 0, backlog: Int32 = 1024) throws -> (descriptor: Int32, port: Int) {
        let descriptor = try makeSocket(family: AF_INET)
        do {
            if port != 0 {
                // A server that comes back on its old port (the soak lab's
                // flapping hosts) must not wait for TIME_WAIT to pass.
                var on: Int32 = 1
                setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
            }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            guard inet_pton(AF_INET, "127.0.0.1", &address.sin_addr) == 1 else {
                throw LocalServerError.socket("inet_pton 127.0.0.1")
            }
            let bound = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                    bind(descriptor, socketAddress, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else { throw failure("bind") }
            guard Glibc.listen(descriptor, backlog) == 0 else { throw failure("listen") }
            return (descriptor, try localPort(of: descriptor))
        } catch {
            close(descriptor)
            throw error
        }
    }

    /// The port a bound socket got.
    static func localPort(of descriptor: Int32) throws -> Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else { throw failure("getsockname") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// The next pending connection, non-blocking; nil when none is waiting.
    static func accept(from listener: Int32) -> Int32? {
        while true {
            let descriptor = Glibc.accept(listener, nil, nil)
            if descriptor >= 0 {
                guard setNonBlocking(descriptor) else {
                    close(descriptor)
                    continue
                }
                return descriptor
            }
            // ECONNABORTED: the client gave up while queued; take the next.
            if errno == EINTR || errno == ECONNABORTED { continue }
            return nil
        }
    }

    /// Starts a non-blocking connect to an IP address; completion is
    /// signalled by POLLOUT and read with `pendingError`.
    static func startConnect(to address: SocketAddress) throws -> Int32 {
        let descriptor = try makeSocket(family: address.family)
        let started = address.withSockaddr { connect(descriptor, $0, $1) }
        return try finishStart(descriptor, started)
    }

    /// The outcome of a non-blocking connect (0 when it succeeded).
    static func pendingError(of descriptor: Int32) -> Int32 {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &value, &length) == 0 else { return errno }
        return value
    }

    package static func read(_ descriptor: Int32, into buffer: inout [UInt8]) -> ReadResult {
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 { return .bytes(count) }
            if count == 0 { return .endOfStream }
            if errno == EINTR { continue }
            return errno == EAGAIN || errno == EWOULDBLOCK ? .wouldBlock : .failed
        }
    }

    package static func write(_ descriptor: Int32, _ bytes: ArraySlice<UInt8>) -> WriteResult {
        while true {
            let count = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count >= 0 { return .bytes(count) }
            if errno == EINTR { continue }
            return errno == EAGAIN || errno == EWOULDBLOCK ? .wouldBlock : .failed
        }
    }

    /// Half-closes: the peer reads end of stream, we can still read.
    package static func shutdownWrites(_ descriptor: Int32) {
        _ = shutdown(descriptor, Int32(SHUT_WR))
    }

    package static func close(_ descriptor: Int32) {
        _ = Glibc.close(descriptor)
    }

    private static func makeSocket(family: Int32) throws -> Int32 {
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let descriptor = socket(family, type, 0)
        guard descriptor >= 0 else { throw failure("socket") }
        return descriptor
    }

    private static func finishStart(_ descriptor: Int32, _ result: Int32) throws -> Int32 {
        if result == 0 || errno == EINPROGRESS { return descriptor }
        let error = failure("connect")
        close(descriptor)
        throw error
    }

    private static func setNonBlocking(_ descriptor: Int32) -> Bool {
        let flags = fcntl(descriptor, F_GETFL)
        return flags >= 0 && fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0
    }

    private static func failure(_ call: String) -> LocalServerError {
        .socket("\(call): \(String(cString: strerror(errno)))")
    }
}
