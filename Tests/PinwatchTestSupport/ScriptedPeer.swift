import Foundation
import PinwatchLocalWorld
import PinwatchProbe

/// A TCP server on 127.0.0.1 that plays the same script to every
/// connection: wait for the client's bytes, say something, trickle,
/// flood, hang up. Each hostile peer of the tests is one short script
/// (a slowloris handshake, a proxy that answers 407, a SOCKS5 proxy that
/// lies) instead of a server class of its own.
///
/// `@unchecked Sendable`: socket work runs on the loop thread, counters
/// are locked.
package final class ScriptedPeer: LocalServer, @unchecked Sendable {
    package enum Step: Sendable {
        /// Until the client has sent this many bytes in all.
        case awaitBytes(Int)
        case send([UInt8])
        /// One byte, then a pause, for each byte.
        case trickle([UInt8], every: TimeInterval)
        /// This block again and again for as long as the client reads.
        case repeatForever([UInt8])
        case close
    }

    package let core: ListeningServerCore

    /// After the last step the connection stays open and silent;
    /// `lifetime` bounds every connection so none outlives a test.
    package init(_ script: [Step], lifetime: TimeInterval = 30) throws {
        core = try ListeningServerCore { socket, owner in
            ScriptedConnection(socket: socket, owner: owner, script: script, lifetime: lifetime)
        }
    }

    package convenience init(_ steps: Step..., lifetime: TimeInterval = 30) throws {
        try self.init(steps, lifetime: lifetime)
    }

    deinit {
        core.stop()
    }
}

final class ScriptedConnection: ServerConnection {
    package let socket: Socket
    let owner: ListeningServerCore
    private let script: [ScriptedPeer.Step]
    private var stepIndex = 0
    private var received = 0
    private var outbound: ArraySlice<UInt8> = []
    private var trickle: (bytes: ArraySlice<UInt8>, interval: TimeInterval)?
    private var nextTrickle: UInt64?
    private var flood: [UInt8]?
    private let end: UInt64
    var closed = false
    private var readBuffer = [UInt8](repeating: 0, count: 16 * 1024)

    init(socket: Socket, owner: ListeningServerCore, script: [ScriptedPeer.Step], lifetime: TimeInterval) {
        self.socket = socket
        self.owner = owner
        self.script = script
        end = MonotonicClock.after(seconds: lifetime)
    }

    package var deadline: UInt64? { min(nextTrickle ?? end, end) }

    package var pollEvents: Int16 {
        Int16(POLLIN) | (outbound.isEmpty && flood == nil ? 0 : Int16(POLLOUT))
    }

    package func start() {
        advance()
    }

    package func handle(events: Int16) {
        if events & Int16(POLLIN | POLLHUP | POLLERR) != 0 { drainInput() }
        if !closed { flush() }
        if !closed { advance() }
    }

    package func deadlinePassed() {
        let now = MonotonicClock.now()
        if now >= end { return finish() }
        guard var current = trickle, let byte = current.bytes.first else { return }
        outbound.append(byte)
        current.bytes = current.bytes.dropFirst()
        trickle = current.bytes.isEmpty ? nil : current
        nextTrickle = trickle.map { _ in MonotonicClock.after(seconds: current.interval) }
        flush()
        if trickle == nil { advance() }
    }

    /// Runs steps until one has to wait: for the client, for the socket,
    /// or for the trickle's timer.
    private func advance() {
        while !closed, outbound.isEmpty, trickle == nil, flood == nil, stepIndex < script.count {
            switch script[stepIndex] {
            case .awaitBytes(let count):
                guard received >= count else { return }
            case .send(let bytes):
                outbound = ArraySlice(bytes)
                flush()
            case .trickle(let bytes, let interval):
                trickle = (ArraySlice(bytes), interval)
                nextTrickle = MonotonicClock.now()
            case .repeatForever(let block):
                flood = block
            case .close:
                return finish()
            }
            stepIndex += 1
        }
    }

    private func drainInput() {
        while !closed {
            switch socket.read(into: &readBuffer) {
            case .bytes(let count): received += count
            case .wouldBlock: return
            case .endOfStream, .failed: return finish()
            }
        }
    }

    private func flush() {
        while !closed {
            if outbound.isEmpty, let flood { outbound = ArraySlice(flood) }
            guard !outbound.isEmpty else { return }
            switch socket.write(outbound) {
            case .bytes(let count): outbound = outbound.dropFirst(count)
            case .wouldBlock: return
            case .failed: return finish()
            }
            // A flood yields after each block: the loop serves other peers.
            if flood != nil { return }
        }
    }

}
