import Foundation
import PinwatchLocalWorld
import PinwatchProbe

/// A TCP server on 127.0.0.1 that, once the client has spoken, streams
/// TLS records a client skips (empty HelloRequests) for as long as the
/// client reads them.
///
/// The attack it stands for: a hostile or broken peer that keeps a TLS
/// client busy without ever finishing the handshake. As a `connectProxy`
/// it first answers CONNECT with 200, then floods the tunnel. A probe
/// must end at its own deadline or byte budget, and its neighbours must
/// not notice.
///
/// `@unchecked Sendable`: socket work runs on the loop thread, counters
/// are locked.
package final class FloodServer: LocalServer, @unchecked Sendable {
    package enum Mode: Sendable {
        /// Floods right after the ClientHello.
        case tls
        /// Answers the CONNECT request with 200, then floods the tunnel.
        case connectProxy
    }

    package let core: ListeningServerCore

    /// `lifetime` bounds each connection, so a client that never hangs
    /// up cannot keep the flood going past a test.
    package init(mode: Mode = .tls, lifetime: TimeInterval = 60) throws {
        let preamble = mode == .connectProxy ? Array("HTTP/1.1 200 Connection established\r\n\r\n".utf8) : []
        core = try ListeningServerCore { socket, owner in
            FloodConnection(socket: socket, owner: owner, preamble: preamble, lifetime: lifetime)
        }
    }

    deinit {
        core.stop()
    }
}

/// One flooded client: wait for its first bytes, then keep its receive
/// buffer full of records it will skip.
final class FloodConnection: ServerConnection {
    /// A TLS 1.2 handshake record holding one HelloRequest (type 0, length 0).
    private static let skippedRecord: [UInt8] = [0x16, 0x03, 0x03, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00]
    private static let block = Array(repeating: skippedRecord, count: 4096).flatMap { $0 }

    package let socket: Socket
    package let deadline: UInt64?
    let owner: ListeningServerCore
    private var outbound: ArraySlice<UInt8> = []
    private let preamble: [UInt8]
    private var flooding = false
    var closed = false
    private var readBuffer = [UInt8](repeating: 0, count: 4096)

    init(socket: Socket, owner: ListeningServerCore, preamble: [UInt8], lifetime: TimeInterval) {
        self.socket = socket
        self.owner = owner
        self.preamble = preamble
        deadline = MonotonicClock.after(seconds: lifetime)
    }

    package var pollEvents: Int16 {
        Int16(POLLIN) | (flooding ? Int16(POLLOUT) : 0)
    }

    package func handle(events: Int16) {
        if events & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
            drainInput()
        }
        guard !closed, flooding else { return }
        // One socket buffer's worth per round: the loop serves other peers too.
        if outbound.isEmpty { outbound = ArraySlice(Self.block) }
        switch socket.write(outbound) {
        case .bytes(let count): outbound = outbound.dropFirst(count)
        case .wouldBlock: return
        case .failed: finish()
        }
    }

    private func drainInput() {
        while !closed {
            switch socket.read(into: &readBuffer) {
            case .bytes:
                if !flooding {
                    flooding = true
                    outbound = ArraySlice(preamble + Self.block)
                }
            case .wouldBlock:
                return
            case .endOfStream, .failed:
                finish()
            }
        }
    }

}
