import Foundation
import PinwatchCore
import PinwatchProbe

/// A TLS server on 127.0.0.1 that completes handshakes with an identity of
/// our own PKI, then closes politely.
///
/// It exists for the integration tests and `pinwatch demo`: hundreds can
/// run in one process because they all share one event-loop thread, and
/// they leave nothing behind once stopped (explicitly or by `deinit`).
///
/// `@unchecked Sendable`: the current context is guarded by `lock`, the
/// counters by their own lock, and all socket work runs on the loop thread.
package final class LocalTLSServer: LocalServer, @unchecked Sendable {
    package let core: ListeningServerCore
    private let current: CurrentContext

    /// Answers the bytes a client sent after the handshake (all of them
    /// so far), or nil to wait for more: an HTTPS peer in one closure.
    package typealias Responder = @Sendable (_ request: [UInt8]) -> [UInt8]?

    /// Starts listening at once; `stallTimeout` bounds how long one
    /// connection may take, handshake and close included. `port` 0 lets
    /// the kernel choose; another port is taken even from TIME_WAIT.
    /// `loopback`: another address of 127.0.0.0/8, for one name served by
    /// several addresses on the same port.
    ///
    /// With `starttls`, each connection first holds that protocol's
    /// plaintext dialogue, as a mail, chat or database server does, and
    /// starts TLS when asked; `offersStartTLS` false plays a server that
    /// does not offer it.
    ///
    /// With a `responder`, each connection reads a request after the
    /// handshake and sends the responder's answer before closing.
    package init(
        identity: Identity, stallTimeout: TimeInterval = 5, port: Int = 0, loopback: String = "127.0.0.1",
        starttls: StartTLSProtocol? = nil, offersStartTLS: Bool = true, responder: Responder? = nil
    ) throws {
        let current = CurrentContext(try ServerTLSContext(identity: identity))
        core = try ListeningServerCore(port: port, loopback: loopback) { socket, owner in
            TLSServerConnection(
                socket: socket, context: current.context, owner: owner, stallTimeout: stallTimeout,
                dialogue: starttls.map { StartTLSServerDialogue(dialogue: $0, offersTLS: offersStartTLS) }, responder: responder)
        }
        self.current = current
    }

    deinit {
        core.stop()
    }

    /// The identity new connections are served with.
    package var identity: Identity {
        current.context.identity
    }

    /// Serves `identity` to every connection accepted from now on (a leaf
    /// renewal or key rotation, live); handshakes in flight finish with
    /// the old one.
    package func replaceIdentity(_ identity: Identity) throws {
        current.context = try ServerTLSContext(identity: identity)
    }

    /// Handshakes that reached Finished.
    package var completedHandshakes: Int { core.statistics.completedHandshakes }
    /// The most connections that were open at the same time, from accept
}

/// The context the next connection gets, swapped by `replaceIdentity`.
///
/// `@unchecked Sendable`: `context` is read and written under `lock`.
private final class CurrentContext: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: ServerTLSContext

    init(_ context: ServerTLSContext) {
        stored = context
    }

    var context: ServerTLSContext {
        get {
            lock.lock()
            defer { lock.unlock() }
            return stored
        }
        set {
            lock.lock()
            stored = newValue
            lock.unlock()
        }
    }
}
