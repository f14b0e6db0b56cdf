import Foundation
import PinwatchProbe

/// One client of the CONNECT proxy: request head, dial, then a two-way
/// relay with half-closes passed through.
///
/// The client socket is this handler; the upstream socket is a second
/// handler (`ProxyUpstream`) that forwards its events here, so both
/// directions are driven by one state machine on the loop thread.
final class ProxySession: ServerConnection {
    private enum Phase {
        case readingHead
        case connecting
        case relaying
        /// An error or refusal was answered; flush it, then close.
        case answeringThenClosing
    }

    /// A request head larger than this is refused (400).
    private static let maximumHeadBytes = 16 * 1024

    let socket: Socket
    let owner: ListeningServerCore
    private let policy: ProxyPolicy
    private let log: ProxyRequestLog
    private var phase = Phase.readingHead
    private var upstream: ProxyUpstream?
    private var head: [UInt8] = []
    private var toClient = RelayBuffer()
    private var toUpstream = RelayBuffer()
    private var clientEnded = false
    private var upstreamEnded = false
    private var clientWritesShut = false
    private var upstreamWritesShut = false
    private var lastActivity = MonotonicClock.now()
    var closed = false
    private var readBuffer = [UInt8](repeating: 0, count: 16 * 1024)

    init(socket: Socket, owner: ListeningServerCore, policy: ProxyPolicy, log: ProxyRequestLog) {
        self.socket = socket
        self.owner = owner
        self.policy = policy
        self.log = log
    }

    /// Idle-based: a tunnel that moves bytes lives on; a silent one dies.
    var deadline: UInt64? {
        lastActivity + UInt64(max(0, policy.stallTimeout) * 1_000_000_000)
    }

    var pollEvents: Int16 {
        var events: Int16 = 0
        if !clientEnded, toUpstream.hasRoom { events |= Int16(POLLIN) }
        if !toClient.isEmpty { events |= Int16(POLLOUT) }
        return events
    }

    var upstreamPollEvents: Int16 {
        switch phase {
        case .connecting:
            return Int16(POLLOUT)
        case .relaying:
            var events: Int16 = 0
            if !upstreamEnded, toClient.hasRoom { events |= Int16(POLLIN) }
            if !toUpstream.isEmpty { events |= Int16(POLLOUT) }
            return events
        case .readingHead, .answeringThenClosing:
            return 0
        }
    }

    func handle(events: Int16) {
        lastActivity = MonotonicClock.now()
        if events & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
            readClient()
        }
        progress()
    }

    func handleUpstream(events: Int16) {
        lastActivity = MonotonicClock.now()
        if phase == .connecting {
            let error = upstream?.socket.pendingError ?? 0
            if error != 0 {
                answer("502 Bad Gateway")
            } else {
                phase = .relaying
                toClient.append(ArraySlice("HTTP/1.1 200 Connection established\r\n\r\n".utf8))
            }
        } else if phase == .relaying, events & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
            readUpstream()
        }
        progress()
    }

    private func readClient() {
        while !clientEnded, !closed, toUpstream.hasRoom {
            switch socket.read(into: &readBuffer) {
            case .bytes(let count):
                let chunk = readBuffer[..<count]
                switch phase {
                case .readingHead:
                    head.append(contentsOf: chunk)
                    takeHeadIfComplete()
                case .connecting, .relaying:
                    toUpstream.append(chunk)
                case .answeringThenClosing:
                    break
                }
            case .wouldBlock:
                return
            case .endOfStream, .failed:
                clientEnded = true
            }
        }
    }

    private func readUpstream() {
        guard let upstream else { return }
        while !upstreamEnded, toClient.hasRoom {
            switch upstream.socket.read(into: &readBuffer) {
            case .bytes(let count):
                toClient.append(readBuffer[..<count])
            case .wouldBlock:
                return
            case .endOfStream, .failed:
                upstreamEnded = true
            }
        }
    }

    private func takeHeadIfComplete() {
        guard let end = head.firstRange(of: ConnectRequestHead.terminator) else {
            if head.count > Self.maximumHeadBytes { answer("400 Bad Request") }
            return
        }
        // Bytes after the head (a client that did not wait for 200) belong
        // to the tunnel.
        toUpstream.append(head[end.upperBound...])
        let parsed = ConnectRequestHead(head[..<end.upperBound])
        head.removeAll()
        guard let parsed else {
            answer("400 Bad Request")
            return
        }
        log.record(.init(method: parsed.method, target: parsed.target, proxyAuthorization: parsed.proxyAuthorization))
        guard parsed.method == "CONNECT" else {
            answer("405 Method Not Allowed")
            return
        }
        guard !policy.rejectAll else {
            answer("403 Forbidden")
            return
        }
        guard let (host, port) = ConnectRequestHead.hostAndPort(parsed.target) else {
            answer("400 Bad Request")
            return
        }
        guard let address = policy.address(for: host, port: port),
            let dialling = try? Socket.connecting(to: address)
        else {
            answer("502 Bad Gateway")
            return
        }
        let dialled = ProxyUpstream(socket: dialling.socket, session: self)
        upstream = dialled
        owner.registerAuxiliary(dialled)
        phase = .connecting
    }

    private func answer(_ status: String) {
        phase = .answeringThenClosing
        closeUpstream()
        toUpstream.removeAll()
        toClient.append(ArraySlice("HTTP/1.1 \(status)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8))
    }

    private func progress() {
        guard !closed else { return }
        guard toClient.drain(into: socket) else { return finish() }
        if phase == .relaying, let upstream {
            guard toUpstream.drain(into: upstream.socket) else { return finish() }
            if clientEnded, toUpstream.isEmpty, !upstreamWritesShut {
                upstream.socket.shutdownWrites()
                upstreamWritesShut = true
            }
            if upstreamEnded, toClient.isEmpty, !clientWritesShut {
                socket.shutdownWrites()
                clientWritesShut = true
            }
            if clientWritesShut, upstreamWritesShut { finish() }
            return
        }
        if phase == .answeringThenClosing, toClient.isEmpty, !clientWritesShut {
            socket.shutdownWrites()
            clientWritesShut = true
        }
        if clientEnded, toClient.isEmpty { finish() }
    }

    private func closeUpstream() {
        guard let upstream else { return }
        owner.deregister(upstream)
        upstream.socket.close()
        self.upstream = nil
    }

    func willClose() {
        closeUpstream()
    }
}

/// The proxy's dialled socket; its events belong to its session.
final class ProxyUpstream: LoopHandler {
    let socket: Socket
    private unowned let session: ProxySession

    var fileDescriptor: Int32 { socket.descriptor }

    init(socket: Socket, session: ProxySession) {
        self.socket = socket
        self.session = session
    }

    var pollEvents: Int16 { session.upstreamPollEvents }

    func handle(events: Int16) {
        session.handleUpstream(events: events)
    }
}
