import Foundation
import PinwatchProbe

/// A plain TCP connection that optionally says one thing, then waits for
/// the client to hang up.
///
/// With a greeting it is the plaintext server's connection: write, half-
/// close, read until end of stream (a FIN, never a reset), bounded by a
/// deadline. Without one it is the black hole's: it reads and discards
/// whatever arrives, never writes a byte, and stays open until the client
/// leaves or the server stops.
package final class RawConnection: ServerConnection {
    package let socket: Socket
    package let deadline: UInt64?
    package let owner: ListeningServerCore
    private var outbound: ArraySlice<UInt8>
    private let halfClosesAfterGreeting: Bool
    private var writesShut = false
    package var closed = false
    private var readBuffer = [UInt8](repeating: 0, count: 4096)

    package init(socket: Socket, owner: ListeningServerCore, greeting: [UInt8]?, stallTimeout: TimeInterval?) {
        self.socket = socket
        self.owner = owner
        outbound = ArraySlice(greeting ?? [])
        halfClosesAfterGreeting = greeting != nil
        deadline = stallTimeout.map { MonotonicClock.after(seconds: $0) }
    }

    package var pollEvents: Int16 {
        Int16(POLLIN) | (outbound.isEmpty ? 0 : Int16(POLLOUT))
    }

    package func start() {
        flush()
    }

    package func handle(events: Int16) {
        flush()
        guard !closed, events & Int16(POLLIN | POLLHUP | POLLERR) != 0 else { return }
        while !closed {
            switch socket.read(into: &readBuffer) {
            case .bytes:
                continue
            case .wouldBlock:
                return
            case .endOfStream, .failed:
                finish()
            }
        }
    }

    private func flush() {
        while !outbound.isEmpty {
            switch socket.write(outbound) {
            case .bytes(let count):
                outbound = outbound.dropFirst(count)
            case .wouldBlock:
                return
            case .failed:
                finish()
                return
            }
        }
        if halfClosesAfterGreeting, !writesShut, !closed {
            socket.shutdownWrites()
            writesShut = true
        }
    }

}
