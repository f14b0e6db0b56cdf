internal import COpenSSL
import Dispatch
import Foundation
import Glibc
import PinwatchCore

/// One probe as a state machine driven by its event loop: resolve →
/// connect → proxy handshake → STARTTLS dialogue → TLS handshake →
/// collect → close.
///
/// Every method runs on the owning loop's thread; nothing here blocks.
final class ProbeConnection {
    let id: Int
    let job: ProbeJob
    let deadline: UInt64
    private unowned let loop: ProbeEventLoop
    private(set) var phase = ProbePhase.resolving

    private var addresses: [SocketAddress] = []
    private var nextAddress = 0
    private var lastConnectError = ""
    private(set) var socket: Socket?
    private var dialled: SocketAddress?
    /// For plain socks5: the target's IP, resolved here before dialling the proxy.
    private var tunnelTargetAddress: String?
    private var proxyExchange: ProxyExchange?
    private var startTLSExchange: StartTLSExchange?
    private var session: TLSSession?
    /// The context's word on an untrusted chain (an empty system store).
    private var untrustedNote: String?
    private var awaitingInput = false
    private var pendingOutput: [UInt8] = []
    private var handshakeBytesReceived = 0
    private var handshakeDone = false

    private var target: ProbeTarget { job.target }

    init(id: Int, job: ProbeJob, loop: ProbeEventLoop) {
        self.id = id
        self.job = job
        self.loop = loop
        let budget = max(0, job.target.timeout)
        deadline = job.admittedAt + UInt64(min(budget, 86_400) * 1_000_000_000)
    }

    deinit {
        releaseResources()
    }

    // MARK: Resolve

    /// The host and port dialled: the proxy's when tunnelling.
    private var dialHost: String { target.proxy?.host ?? target.connectAddress ?? target.host }
    private var dialPort: Int { target.proxy?.port ?? target.port }
    /// The host the proxy is asked to reach (DESIGN §4: `connect:` changes it).
    private var tunnelHost: String { target.connectAddress ?? target.host }

    func begin() {
        if target.proxy?.scheme == .socks5, !SocketAddress.isIPLiteral(tunnelHost) {
            // Plain socks5 means the client resolves the target itself.
            phase = .resolving
            loop.resolve(host: tunnelHost, port: target.port, deadline: deadline, connectionID: id, purpose: .tunnelTarget)
            return
        }
        resolveDialHost()
    }

    private func resolveDialHost() {
        if let numeric = SocketAddress.numeric(dialHost, port: dialPort) {
            addresses = [numeric]
            connectToNextAddress()
        } else {
            phase = .resolving
            loop.resolve(host: dialHost, port: dialPort, deadline: deadline, connectionID: id, purpose: .dial)
        }
    }

    func resolved(_ answer: NameResolver.Answer, purpose: ProbeEventLoop.ResolvePurpose) {
        guard phase == .resolving else { return }
        switch (answer, purpose) {
        case (.failed(let message), .dial) where target.proxy != nil:
            finish(failure: ProbeFailure(kind: .proxy, message: "proxy \(message)"))
        case (.failed(let message), _):
            finish(failure: ProbeFailure(kind: .dns, message: message))
        case (.unavailable(let shortage, let message), _):
            finish(failure: .local(shortage, message: message))
        case (.addresses(let found), .tunnelTarget):
            tunnelTargetAddress = found.first?.ipText
            resolveDialHost()
        case (.addresses(let found), .dial):
            addresses = found
            connectToNextAddress()
        }
    }

    // MARK: Connect

    private func connectToNextAddress() {
        phase = .connecting
        while nextAddress < addresses.count {
            let address = addresses[nextAddress]
            nextAddress += 1
            closeSocket()
            let opened: Socket
            do {
                opened = try Socket.open(family: address.family)
            } catch {
                lastConnectError = "cannot open a socket: \(error.reason)"
                if let shortage = LocalResourceShortage(errno: error.code) {
                    // Another address would meet the same limit.
                    return finish(failure: .local(shortage, message: "pinwatch " + lastConnectError))
                }
                continue
            }
            socket = opened
            dialled = address
            do {
                switch try opened.startConnect(to: address) {
                case .connected: connected()
                case .inProgress: loop.watch(self, for: .writable)
                }
                return
            } catch {
                lastConnectError = "\(error.reason) (\(address.endpointText))"
            }
        }
        closeSocket()
        let kind: ProbeErrorKind = target.proxy == nil ? .refused : .proxy
        let prefix = target.proxy == nil ? "" : "cannot reach proxy: "
        finish(
            failure: ProbeFailure(kind: kind, message: prefix + (lastConnectError.isEmpty ? "no address to connect to" : lastConnectError)))
    }

    func socketReady() {
        switch phase {
        case .connecting: connectCompleted()
        case .proxying: advanceProxy()
        case .startingTLS: advanceStartTLS()
        case .handshaking: advanceHandshake()
        case .resolving, .finished: return
        }
    }

    private func connectCompleted() {
        guard let socket else { return }
        let error = socket.pendingError
        if error != 0 {
            lastConnectError = "\(String(cString: strerror(error))) (\(dialled?.endpointText ?? "?"))"
            connectToNextAddress()
            return
        }
        // An event left over from the previous address's socket (same
        // connection id, same epoll batch) must not pass for this one.
        guard socket.hasPeer else { return loop.watch(self, for: .writable) }
        connected()
    }

    private func connected() {
        if let route = target.proxy {
            phase = .proxying
            proxyExchange = ProxyExchange(route: route, targetHost: tunnelTargetAddress ?? tunnelHost, targetPort: target.port)
            advanceProxy()
        } else {
            startDialogue(received: [])
        }
    }

    // MARK: Proxy

    private enum ExchangeStep {
        case wait(SocketInterest)
        case failed(String)
        case socketFailed(Int32)
        case closed
        case established
    }

    private func advanceProxy() {
        guard var exchange = proxyExchange else { return }
        let step = pump(&exchange)
        proxyExchange = exchange
        switch step {
        case .wait(let interest):
            loop.watch(self, for: interest)
        case .failed(let message):
            finish(failure: ProbeFailure(kind: .proxy, message: message))
        case .socketFailed(let code):
            finish(failure: ProbeFailure(kind: .proxy, message: "proxy connection failed: \(String(cString: strerror(code)))"))
        case .closed:
            finish(failure: ProbeFailure(kind: .proxy, message: "proxy closed the connection during its handshake"))
        case .established:
            proxyExchange = nil
            startDialogue(received: exchange.surplus)
        }
    }

    /// Writes what the exchange has to say and reads its answer until the
    /// socket would block or the exchange ends.
    private func pump<Exchange: PlaintextExchange>(_ exchange: inout Exchange) -> ExchangeStep {
        guard let socket else { return .closed }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            if !exchange.outgoing.isEmpty {
                switch socket.write(exchange.outgoing) {
                case .bytes(let sent): exchange.didSend(sent)
                case .wouldBlock: return .wait(.writable)
                case .failed(let code): return .socketFailed(code)
                }
                continue
            }
            let count: Int
            switch socket.read(into: &buffer) {
            case .bytes(let read): count = read
            case .wouldBlock: return .wait(.readable)
            case .endOfStream: return .closed
            case .failed(let code): return .socketFailed(code)
            }
            switch exchange.receive(Array(buffer.prefix(count))) {
            case .needMore: continue
            case .failed(let message): return .failed(message)
            case .established: return .established
            }
        }
    }

    // MARK: STARTTLS

    /// `received`: what the server already sent (behind a proxy's answer).
    private func startDialogue(received: [UInt8]) {
        guard let dialogue = target.starttls else { return startHandshake() }
        phase = .startingTLS
        var exchange = StartTLSExchange(dialogue: dialogue, serverName: target.serverName)
        if !received.isEmpty {
            switch exchange.receive(received) {
            case .needMore: break
            case .failed(let message): return finish(failure: ProbeFailure(kind: .tls, message: message))
            case .established: return startHandshake()
            }
        }
        startTLSExchange = exchange
        advanceStartTLS()
    }

    private func advanceStartTLS() {
        guard var exchange = startTLSExchange else { return }
        let step = pump(&exchange)
        startTLSExchange = exchange
        let name = exchange.dialogue.displayName
        switch step {
        case .wait(let interest):
            loop.watch(self, for: interest)
        case .failed(let message):
            finish(failure: ProbeFailure(kind: .tls, message: message))
        case .socketFailed(let code):
            finish(
                failure: ProbeFailure(
                    kind: .tls, message: "starttls: the \(name) dialogue failed: \(String(cString: strerror(code)))"))
        case .closed:
            finish(
                failure: ProbeFailure(kind: .tls, message: "starttls: the server closed the connection during the \(name) dialogue"))
        case .established:
            startTLSExchange = nil
            startHandshake()
        }
    }

    // MARK: TLS

    /// What one readiness event may feed the handshake: one TLS record's
    /// worth. OpenSSL then stops with WANT_READ, so a server that streams
    /// records OpenSSL skips (empty HelloRequests, say) cannot keep the
    /// loop thread inside one `SSL_connect` past every other probe's deadline.
    static let readChunkBytes = 16 * 1024 + 512
    /// The whole handshake's input: the certificate list cap plus room for
    /// every other handshake message. A server past it is flooding.
    static let maximumHandshakeBytes = 4 * TLSContext.maximumCertificateListBytes

    private func startHandshake() {
        phase = .handshaking
        let context: TLSContext
        do {
            context = try loop.context(for: target.trust, offering: target.keyTypeOffer)
        } catch let failure as ProbeFailure {
            return finish(failure: failure)
        } catch {
            return finish(failure: ProbeFailure(kind: .tls, message: "\(error)"))
        }
        untrustedNote = context.untrustedNote
        // Memory BIOs instead of the socket: this connection decides how
        // many bytes OpenSSL sees per event, and counts them.
        guard let created = TLSSession(context: context.pointer, role: .client) else {
            // SSL_new fails only when an allocation does.
            return finish(failure: .local(.memory, message: "pinwatch cannot create a TLS session: out of memory"))
        }
        session = created
        let name = target.serverName
        if SocketAddress.isIPLiteral(name) {
            // RFC 6066 forbids IP literals in SNI; the IP is checked against
            // the certificate's IP SANs instead.
            let bare = name.hasPrefix("[") ? String(name.dropFirst().dropLast()) : name
            _ = X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(created.pointer), bare)
        } else {
            _ = pinwatch_SSL_set_tlsext_host_name(created.pointer, name)
            _ = SSL_set1_host(created.pointer, name)
        }
        // Asks for the server's stapled OCSP response: it comes in the handshake, no query of our own.
        if target.checksRevocation { _ = pinwatch_SSL_set_tlsext_status_type(created.pointer, TLSEXT_STATUSTYPE_ocsp) }
        // A release that requires Certificate Transparency counts SCTs from the handshake too.
        if target.sctLogs != nil { ServedSCTs.request(on: created.pointer) }
        _ = OpenSSLErrorQueue.drainCodes()
        advanceHandshake()
    }

    private func advanceHandshake() {
        guard let session else { return }
        guard sendPendingOutput() else { return }
        if awaitingInput {
            guard feedOneChunk(into: session) else { return }
        }
        let step = session.handshake()
        session.takeOutput(into: &pendingOutput)
        switch step {
        case .finished:
            handshakeDone = true
            collect(from: session.pointer)
        case .wantsInput:
            awaitingInput = true
            guard sendPendingOutput() else { return }
            loop.watch(self, for: .readable)
        case .failed(let error):
            finish(
                failure: ProbeFailure(
                    kind: .tls, message: TLSFailureText.handshakeFailure(sslError: error, offer: target.keyTypeOffer)))
        }
    }

    /// Reads at most one chunk from the socket into OpenSSL's input.
    /// Returns false when the probe must wait for the socket or has ended.
    private func feedOneChunk(into session: TLSSession) -> Bool {
        guard let socket else { return false }
        let count: Int
        switch socket.read(into: &loop.handshakeBuffer) {
        case .bytes(let read):
            count = read
        case .wouldBlock:
            loop.watch(self, for: .readable)
            return false
        case .endOfStream:
            session.endOfInput()
            return true
        case .failed(let code):
            finish(failure: ProbeFailure(kind: .tls, message: "TLS handshake failed: \(String(cString: strerror(code)))"))
            return false
        }
        handshakeBytesReceived += count
        guard handshakeBytesReceived <= Self.maximumHandshakeBytes else {
            finish(
                failure: ProbeFailure(
                    kind: .tls,
                    message: "the server sent more than \(Self.maximumHandshakeBytes / 1024) KiB without completing the TLS handshake"))
            return false
        }
        loop.handshakeBuffer.withUnsafeBytes { session.feed(UnsafeRawBufferPointer(rebasing: $0.prefix(count))) }
        return true
    }

    /// Sends the queued handshake bytes. Returns false when the probe must
    /// wait for the socket to take more, or has ended.
    private func sendPendingOutput() -> Bool {
        guard let socket else { return false }
        while !pendingOutput.isEmpty {
            switch socket.write(pendingOutput) {
            case .bytes(let sent):
                pendingOutput.removeFirst(sent)
            case .wouldBlock:
                loop.watch(self, for: .writable)
                return false
            case .failed(let code):
                let reason =
                    code == EPIPE || code == ECONNRESET
                    ? "connection closed by the server during the TLS handshake"
                    : "TLS handshake failed: \(String(cString: strerror(code)))"
                finish(failure: ProbeFailure(kind: .tls, message: reason))
                return false
            }
        }
        return true
    }

    private func collect(from session: OpaquePointer) {
        switch ChainCollector.collect(from: session, issuerFacts: loop.issuerFacts, revocation: target.checksRevocation) {
        case .failure(let failure):
            finish(failure: failure)
        case .success(let outcome):
            let finished = Date()
            var result = ProbeResult(
                address: reportedAddress, chain: outcome.chain, sentCount: outcome.sentCount, trusted: outcome.trusted,
                trustError: outcome.trustError.map { error in untrustedNote.map { "\(error); \($0)" } ?? error },
                elapsed: elapsed, proxy: target.proxy, finishedAt: finished)
            if target.checksRevocation {
                result.revocationSubjects = outcome.revocationSubjects
                if outcome.trusted, let stapled = StapledOCSP.finding(in: session, chain: outcome.certificates, now: finished) {
                    result.revocation = [stapled]
                }
            }
            if let logs = target.sctLogs {
                result.scts = ServedSCTs.observed(in: session, chain: outcome.certificates, logs: logs, keys: loop.logKeys)
            }
            finish(result: result)
        }
    }

    // MARK: Finish

    /// The deadline passed: report the phase it caught the probe in.
    func expire() {
        guard phase != .finished else { return }
        let seconds = String(format: "%g", target.timeout)
        if phase == .startingTLS, let silence = startTLSExchange?.silenceText {
            return finish(failure: ProbeFailure(kind: .timeout, message: "timed out after \(seconds) s: \(silence)"))
        }
        finish(failure: ProbeFailure(kind: .timeout, message: "timed out after \(seconds) s during \(phase.rawValue)"))
    }

    /// Stops without a result (the cycle was cancelled or the engine stopped).
    func abandon() {
        phase = .finished
        releaseResources()
    }

    /// The IP dialled, as DESIGN §8's `address` shows it: the proxy's when
    /// tunnelling (its URL is reported under `proxy`).
    private var reportedAddress: String? {
        dialled?.ipText
    }

    private var elapsed: TimeInterval {
        TimeInterval(DispatchTime.now().uptimeNanoseconds - job.admittedAt) / 1_000_000_000
    }

    private func finish(failure: ProbeFailure) {
        finish(result: ProbeResult.failed(failure, address: reportedAddress, elapsed: elapsed, proxy: target.proxy))
    }

    private func finish(result: ProbeResult) {
        guard phase != .finished else { return }
        phase = .finished
        releaseResources()
        loop.finished(self, result: result)
    }

    private func releaseResources() {
        if let session {
            if handshakeDone, let socket {
                // One non-blocking close_notify; the peer's answer is not awaited.
                session.shutdown()
                session.takeOutput(into: &pendingOutput)
                _ = socket.write(pendingOutput)
            }
            self.session = nil
            pendingOutput = []
        }
        closeSocket()
    }

    private func closeSocket() {
        guard let socket else { return }
        loop.forget(self)
        socket.close()
        self.socket = nil
    }
}
