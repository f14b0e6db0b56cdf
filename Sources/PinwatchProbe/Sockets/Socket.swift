import Glibc

/// A TCP socket as every connection of the project uses one: the probe's,
/// the signed-list download's, the local servers' and the tests' peers'.
///
/// Always non-blocking and close-on-exec (a hook started meanwhile must not
/// inherit it); every write uses MSG_NOSIGNAL, so a peer that hangs up
/// mid-write costs an EPIPE, never a SIGPIPE that kills the process. The
/// value only names the descriptor: its owner calls `close` exactly once.
package struct Socket: Equatable, Sendable {
    package let descriptor: Int32

    package init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    package enum ReadResult: Equatable {
        case bytes(Int)
        case wouldBlock
        case endOfStream
        case failed(errno: Int32)
    }

    package enum WriteResult: Equatable {
        case bytes(Int)
        case wouldBlock
        case failed(errno: Int32)
    }

    package enum ConnectStart: Equatable {
        case connected
        /// Completes when the socket turns writable; `pendingError` tells how.
        case inProgress
    }

    // MARK: Opening

    /// A fresh stream socket for `family` (AF_INET or AF_INET6).
    package static func open(family: Int32) throws(SocketError) -> Socket {
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let descriptor = Glibc.socket(family, type, 0)
        guard descriptor >= 0 else { throw SocketError(call: "socket", code: errno) }
        return Socket(descriptor: descriptor)
    }

    /// Starts a connect without waiting for it.
    package func startConnect(to address: SocketAddress) throws(SocketError) -> ConnectStart {
        let status = address.withSockaddr { Glibc.connect(descriptor, $0, $1) }
        if status == 0 { return .connected }
        let code = errno
        if code == EINPROGRESS { return .inProgress }
        throw SocketError(call: "connect", code: code)
    }

    /// A new socket with its connect started; closed again if the start fails.
    package static func connecting(to address: SocketAddress) throws(SocketError) -> (socket: Socket, start: ConnectStart) {
        let socket = try open(family: address.family)
        do throws(SocketError) {
            return (socket, try socket.startConnect(to: address))
        } catch {
            socket.close()
            throw error
        }
    }

    /// The outcome of a connect that was in progress: 0 once connected,
    /// else the errno it failed with.
    package var pendingError: Int32 {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &value, &length) == 0 else { return errno }
        return value
    }

    /// Whether the connect has completed: a writability event can be left
    /// over from an earlier socket that had the same descriptor number.
    package var hasPeer: Bool {
        var peer = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        return withUnsafeMutablePointer(to: &peer) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(descriptor, $0, &length) == 0 }
        }
    }

    // MARK: Listening

    /// A listening socket on 127.0.0.1 (or another loopback address of
    /// 127.0.0.0/8: a name with several addresses, in the tests), on
    /// `port` or (0) a kernel-chosen one.
    package static func listen(port: Int = 0, backlog: Int32 = 1024, loopback: String = "127.0.0.1") throws(SocketError) -> (
        socket: Socket, port: Int
    ) {
        guard loopback.hasPrefix("127.") else { throw SocketError(call: "listen on \(loopback), not a loopback address", code: EINVAL) }
        let socket = try open(family: AF_INET)
        do throws(SocketError) {
            if port != 0 {
                // A server that comes back on its old port (the soak lab's
                // flapping hosts) must not wait for TIME_WAIT to pass.
                var on: Int32 = 1
                setsockopt(socket.descriptor, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
            }
            guard let address = SocketAddress.numeric(loopback, port: port) else {
                throw SocketError(call: "inet_pton \(loopback)", code: EINVAL)
            }
            guard address.withSockaddr({ bind(socket.descriptor, $0, $1) }) == 0 else {
                throw SocketError(call: "bind", code: errno)
            }
            guard Glibc.listen(socket.descriptor, backlog) == 0 else { throw SocketError(call: "listen", code: errno) }
            return (socket, try socket.localPort())
        } catch {
            socket.close()
            throw error
        }
    }

    /// The port a bound socket got.
    package func localPort() throws(SocketError) -> Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else { throw SocketError(call: "getsockname", code: errno) }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// The next pending connection, non-blocking and close-on-exec; nil
    /// when none is waiting.
    package func accept() -> Socket? {
        while true {
            let accepted = Glibc.accept(descriptor, nil, nil)
            if accepted >= 0 {
                let flags = fcntl(accepted, F_GETFL)
                guard flags >= 0, fcntl(accepted, F_SETFL, flags | O_NONBLOCK) == 0,
                    fcntl(accepted, F_SETFD, FD_CLOEXEC) == 0
                else {
                    Glibc.close(accepted)
                    continue
                }
                return Socket(descriptor: accepted)
            }
            // ECONNABORTED: the client gave up while queued; take the next.
            if errno == EINTR || errno == ECONNABORTED { continue }
            return nil
        }
    }

    // MARK: Bytes

    /// Reads what is there, up to `buffer.count` bytes, onto its start.
    package func read(into buffer: inout [UInt8]) -> ReadResult {
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 { return .bytes(count) }
            if count == 0 { return .endOfStream }
            if errno == EINTR { continue }
            return errno == EAGAIN || errno == EWOULDBLOCK ? .wouldBlock : .failed(errno: errno)
        }
    }

    package func write(_ bytes: ArraySlice<UInt8>) -> WriteResult {
        while true {
            let count = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count >= 0 { return .bytes(count) }
            if errno == EINTR { continue }
            return errno == EAGAIN || errno == EWOULDBLOCK ? .wouldBlock : .failed(errno: errno)
        }
    }

    package func write(_ bytes: [UInt8]) -> WriteResult {
        write(bytes[...])
    }

    // MARK: Closing

    /// Half-closes: the peer reads end of stream, we can still read.
    package func shutdownWrites() {
        _ = shutdown(descriptor, Int32(SHUT_WR))
    }

    package func close() {
        _ = Glibc.close(descriptor)
    }
}

/// A socket call that failed, with its errno.
package struct SocketError: Error, Equatable, CustomStringConvertible {
    package let call: String
    package let code: Int32

    package init(call: String, code: Int32) {
        self.call = call
        self.code = code
    }

    package var reason: String { String(cString: strerror(code)) }
    package var description: String { "\(call): \(reason)" }
}
