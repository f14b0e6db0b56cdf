import Foundation
import PinwatchProbe

/// One accepted TLS connection: handshake, close_notify, lingering close.
///
/// OpenSSL talks to memory BIOs and this class moves the bytes, so that
/// the socket stays non-blocking, writes never raise SIGPIPE, and the
/// whole state machine runs on the shared loop thread.
final class TLSServerConnection: ServerConnection {
    private enum Phase {
        case handshaking
        /// Handshake over, reading the request a `responder` answers.
        case answering
        /// Handshake over (or failed): flush what OpenSSL wrote, half-close,
        /// then read until the client hangs up, so the close is a FIN and
        /// never a reset that could hide the chain from the client.
        case lingering
    }

    /// Unprocessed client bytes beyond this end the connection.
    private static let maximumBufferedInput = 1 << 20

    let socket: Socket
    let deadline: UInt64?
    private let session: TLSSession
    let owner: ListeningServerCore
    private var phase = Phase.handshaking
    private var outbound: [UInt8] = []
    private var outboundOffset = 0
    private var peerClosed = false
    private var writesShut = false
    var closed = false
    private var readBuffer = [UInt8](repeating: 0, count: 16 * 1024)
    /// The plaintext dialogue before TLS (`starttls:` peers); nil once TLS starts.
    private var dialogue: StartTLSServerDialogue?
    private let responder: LocalTLSServer.Responder?
    private var request: [UInt8] = []

    init?(
        socket: Socket, context: ServerTLSContext, owner: ListeningServerCore, stallTimeout: TimeInterval,
        dialogue: StartTLSServerDialogue? = nil, responder: LocalTLSServer.Responder? = nil
    ) {
        self.responder = responder
        guard let session = TLSSession(context: context.pointer, role: .server) else { return nil }
        self.session = session
        self.socket = socket
        self.owner = owner
        self.deadline = MonotonicClock.after(seconds: stallTimeout)
        self.dialogue = dialogue
    }

    func start() {
        guard let greeting = dialogue?.greeting, !greeting.isEmpty else { return }
        outbound += greeting
        flush()
    }

    var pollEvents: Int16 {
        var events: Int16 = 0
        if !peerClosed { events |= Int16(POLLIN) }
        if outboundOffset < outbound.count { events |= Int16(POLLOUT) }
        return events
    }

    func handle(events: Int16) {
        if events & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
            readAvailable()
        }
        advance()
        flush()
        if closed { return }
        let flushed = outboundOffset >= outbound.count
        if phase == .lingering, flushed, !writesShut {
            socket.shutdownWrites()
            writesShut = true
        }
        if peerClosed, flushed || phase == .handshaking {
            finish()
        }
    }

    private func readAvailable() {
        while !peerClosed {
            switch socket.read(into: &readBuffer) {
            case .bytes(let count):
                // Once lingering, whatever the client still sends is moot.
                if var plaintext = dialogue {
                    // What follows the go-ahead in the same read is the
                    // client's mistake, not TLS: it is dropped.
                    let (reply, startTLS) = plaintext.receive(Array(readBuffer.prefix(count)))
                    outbound += reply
                    dialogue = startTLS ? nil : plaintext
                } else if phase == .handshaking || phase == .answering {
                    readBuffer.withUnsafeBytes { session.feed(UnsafeRawBufferPointer(rebasing: $0.prefix(count))) }
                    // A client hello is a few KB; a flood is not a client.
                    if session.bufferedInput > Self.maximumBufferedInput {
                        peerClosed = true
                    }
                }
            case .wouldBlock:
                return
            case .endOfStream, .failed:
                peerClosed = true
            }
        }
    }

    private func advance() {
        if phase == .answering {
            answer()
            return
        }
        guard phase == .handshaking, dialogue == nil else { return }
        switch session.handshake() {
        case .finished:
            owner.statistics.handshakeCompleted()
            if responder != nil {
                phase = .answering
                answer()
                return
            }
            session.shutdown()
            phase = .lingering
        case .wantsInput where !peerClosed:
            return
        case .wantsInput, .failed:
            // A failed handshake: OpenSSL has queued its alert; send it,
            // then close like a finished one.
            phase = .lingering
        }
    }

    /// Reads the request until the responder has its answer, then closes
    /// like a handshake; a client that hangs up or floods gets none.
    private func answer() {
        guard let responder else { return }
        reading: while request.count <= Self.maximumBufferedInput {
            switch session.read(into: &request, maximum: 16 * 1024) {
            case .bytes:
                continue
            case .wantsInput where !peerClosed:
                guard let reply = responder(request) else { return }
                _ = session.write(reply)
                break reading
            case .wantsInput, .closed, .failed:
                break reading
            }
        }
        session.shutdown()
        phase = .lingering
    }

    private func flush() {
        if outboundOffset >= outbound.count {
            outbound.removeAll(keepingCapacity: true)
            outboundOffset = 0
        }
        session.takeOutput(into: &outbound)
        while outboundOffset < outbound.count {
            switch socket.write(outbound[outboundOffset...]) {
            case .bytes(let count):
                outboundOffset += count
            case .wouldBlock:
                return
            case .failed:
                finish()
                return
            }
        }
    }

}
