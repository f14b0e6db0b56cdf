internal import COpenSSL
import Dispatch
import Foundation
import Glibc
import PinwatchCore
import PinwatchSystem

/// Fetches a signed pin list (`clients: dynamic_list: {url: …}`) the way a
/// probe reaches a host: the configuration's proxy rules and trust store,
/// host-name verification, one deadline for everything, a bounded size.
///
/// It runs once per configuration load (start, SIGHUP), so it blocks its
/// caller, but never past the deadline: every socket wait is a `poll`
/// bounded by it.
package enum SignedListDownload {
    /// The list's body and its `X-Cert-Pinning-Signature`, if the server
    /// sent one. `challenge` goes out as `X-Cert-Pinning-Challenge` (a
    /// challenge-signed list, WultraSSLPinning 1.9); a server of the old
    /// per-entry-signed lists ignores it.
    package static func fetch(_ source: ClientSource, maximumBytes: Int, challenge: String? = nil) throws(ClientSourceError) -> (
        body: [UInt8], signature: String?
    ) {
        let url = source.locationText
        do throws(ProbeFailure) {
            return try Attempt(source: source, maximumBytes: maximumBytes, challenge: challenge).run()
        } catch {
            throw ClientSourceError(file: url, message: "cannot download the list: \(error.message)")
        }
    }

    /// The `http`/`https` URL's parts.
    struct Endpoint {
        var secure: Bool
        var host: String
        var port: Int
        var pathAndQuery: String

        init(_ text: String) throws(ProbeFailure) {
            guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
                scheme == "https" || scheme == "http", let host = components.host, !host.isEmpty
            else { throw ProbeFailure(kind: .dns, message: "\(EchoedInput.quoted(text)) is not an http(s) URL") }
            secure = scheme == "https"
            self.host = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
            port = components.port ?? (secure ? 443 : 80)
            let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
            pathAndQuery = path + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
        }
    }

    private final class Attempt {
        let source: ClientSource
        let endpoint: Endpoint
        let maximumBytes: Int
        let deadline: UInt64
        let challenge: String?
        private var socket: Socket?

        init(source: ClientSource, maximumBytes: Int, challenge: String?) throws(ProbeFailure) {
            // A header value holds no line break: it would end the head.
            guard challenge?.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) ?? true else {
                throw ProbeFailure(kind: .tls, message: "the challenge is not a header value")
            }
            self.challenge = challenge
            self.source = source
            endpoint = try Endpoint(source.locationText)
            self.maximumBytes = maximumBytes
            deadline = DispatchTime.now().uptimeNanoseconds + UInt64(min(max(source.timeout, 0.1), 600) * 1_000_000_000)
        }

        deinit {
            socket?.close()
        }

        func run() throws(ProbeFailure) -> (body: [UInt8], signature: String?) {
            let route = ProxyResolver(environment: ProcessEnvironment.current).route(forHost: endpoint.host, setting: source.proxy)
            try connect(host: route?.host ?? endpoint.host, port: route?.port ?? endpoint.port, viaProxy: route != nil)
            if let route { try tunnel(route) }
            let request = Array(
                ("GET \(endpoint.pathAndQuery) HTTP/1.1\r\nHost: \(hostHeader)\r\nUser-Agent: pinwatch\r\n"
                    + "Accept: application/json\r\n" + (challenge.map { "X-Cert-Pinning-Challenge: \($0)\r\n" } ?? "")
                    + "Connection: close\r\n\r\n").utf8)
            let limit = maximumBytes + HTTPResponseBody.maximumHeadBytes
            let response = endpoint.secure ? try exchangeTLS(request, limit: limit) : try exchangePlain(request, limit: limit)
            do {
                let parsed = try HTTPResponseBody.parse(response, maximumBodyBytes: maximumBytes, header: "X-Cert-Pinning-Signature")
                return (parsed.body, parsed.header)
            } catch {
                throw ProbeFailure(kind: .tls, message: error.description)
            }
        }

        private var hostHeader: String {
            let name = endpoint.host.contains(":") ? "[\(endpoint.host)]" : endpoint.host
            let defaultPort = endpoint.secure ? 443 : 80
            return endpoint.port == defaultPort ? name : "\(name):\(endpoint.port)"
        }

        // MARK: connect and tunnel

        private func connect(host: String, port: Int, viaProxy: Bool) throws(ProbeFailure) {
            let addresses: [SocketAddress]
            if let numeric = SocketAddress.numeric(host, port: port) {
                addresses = [numeric]
            } else {
                switch NameResolver.lookUp(host: host, port: port) {
                case .failed(let message): throw ProbeFailure(kind: viaProxy ? .proxy : .dns, message: message)
                case .unavailable(let shortage, let message): throw ProbeFailure.local(shortage, message: message)
                case .addresses(let found): addresses = found
                }
            }
            var lastError = "no address to connect to"
            for address in addresses {
                let dialling: (socket: Socket, start: Socket.ConnectStart)
                do {
                    dialling = try Socket.connecting(to: address)
                } catch {
                    lastError = "\(error.reason) (\(address.endpointText))"
                    continue
                }
                if dialling.start == .connected || (try? wait(dialling.socket, for: Int16(POLLOUT))) == true {
                    let error = dialling.socket.pendingError
                    if error == 0 {
                        socket = dialling.socket
                        return
                    }
                    lastError = "\(String(cString: strerror(error))) (\(address.endpointText))"
                } else {
                    lastError = "timed out connecting to \(address.endpointText)"
                }
                dialling.socket.close()
            }
            throw ProbeFailure(kind: viaProxy ? .proxy : .refused, message: (viaProxy ? "cannot reach proxy: " : "") + lastError)
        }

        private func tunnel(_ route: ProxyRoute) throws(ProbeFailure) {
            var target = endpoint.host
            if route.scheme == .socks5, !SocketAddress.isIPLiteral(target) {
                // Plain socks5: the client resolves the target itself.
                guard case .addresses(let found) = NameResolver.lookUp(host: target, port: endpoint.port), let first = found.first else {
                    throw ProbeFailure(kind: .dns, message: "cannot resolve \(target)")
                }
                target = first.ipText
            }
            var exchange = ProxyExchange(route: route, targetHost: target, targetPort: endpoint.port)
            while true {
                if !exchange.outgoing.isEmpty {
                    try send(exchange.outgoing)
                    exchange.didSend(exchange.outgoing.count)
                }
                guard let bytes = try receive(maximum: 512) else {
                    throw ProbeFailure(kind: .proxy, message: "the proxy closed the connection during its handshake")
                }
                switch exchange.receive(bytes) {
                case .needMore: continue
                case .established: return
                case .failed(let message): throw ProbeFailure(kind: .proxy, message: message)
                }
            }
        }

        // MARK: exchanges

        private func exchangePlain(_ request: [UInt8], limit: Int) throws(ProbeFailure) -> [UInt8] {
            try send(request)
            var response: [UInt8] = []
            while response.count <= limit, !HTTPResponseBody.isComplete(response, maximumBodyBytes: maximumBytes) {
                guard let bytes = try receive(maximum: 64 * 1024) else { break }
                response += bytes
            }
            return response
        }

        private func exchangeTLS(_ request: [UInt8], limit: Int) throws(ProbeFailure) -> [UInt8] {
            let context: TLSContext
            do {
                context = try TLSContext(trust: source.trust)
            } catch let failure as ProbeFailure {
                throw failure
            } catch {
                throw ProbeFailure(kind: .tls, message: "\(error)")
            }
            guard let session = TLSSession(context: context.pointer, role: .client) else {
                throw ProbeFailure(kind: .tls, message: "cannot create a TLS session")
            }
            if SocketAddress.isIPLiteral(endpoint.host) {
                _ = X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(session.pointer), endpoint.host)
            } else {
                _ = pinwatch_SSL_set_tlsext_host_name(session.pointer, endpoint.host)
                _ = SSL_set1_host(session.pointer, endpoint.host)
            }
            _ = OpenSSLErrorQueue.drainCodes()
            var output: [UInt8] = []
            handshake: while true {
                let step = session.handshake()
                session.takeOutput(into: &output)
                try send(output)
                output.removeAll()
                switch step {
                case .finished: break handshake
                case .wantsInput:
                    guard let bytes = try receive(maximum: 64 * 1024) else {
                        throw ProbeFailure(kind: .tls, message: "the server closed the connection during the TLS handshake")
                    }
                    bytes.withUnsafeBytes { session.feed($0) }
                case .failed(let code):
                    throw ProbeFailure(kind: .tls, message: TLSFailureText.handshakeFailure(sslError: code))
                }
            }
            // The context lets every handshake finish (probes report untrusted
            // chains); a download accepts only a verified one.
            let verification = SSL_get_verify_result(session.pointer)
            guard verification == X509_V_OK else {
                throw ProbeFailure(
                    kind: .tls,
                    message: "the list server's chain is not trusted (\(String(cString: X509_verify_cert_error_string(verification))))")
            }
            guard session.write(request) else { throw ProbeFailure(kind: .tls, message: "cannot send the request") }
            session.takeOutput(into: &output)
            try send(output)
            var response: [UInt8] = []
            reading: while response.count <= limit, !HTTPResponseBody.isComplete(response, maximumBodyBytes: maximumBytes) {
                switch session.read(into: &response, maximum: limit + 1 - response.count) {
                case .bytes: continue
                case .closed: break reading
                case .failed(let code):
                    throw ProbeFailure(kind: .tls, message: TLSFailureText.handshakeFailure(sslError: code))
                case .wantsInput:
                    guard let bytes = try receive(maximum: 64 * 1024) else { break reading }
                    bytes.withUnsafeBytes { session.feed($0) }
                }
            }
            return response
        }

        // MARK: bounded socket I/O

        private func send(_ bytes: [UInt8]) throws(ProbeFailure) {
            guard let socket else { throw ProbeFailure(kind: .tls, message: "send failed: not connected") }
            var offset = 0
            while offset < bytes.count {
                switch socket.write(bytes[offset...]) {
                case .bytes(let sent): offset += sent
                case .wouldBlock: _ = try wait(socket, for: Int16(POLLOUT))
                case .failed(let code): throw ProbeFailure(kind: .tls, message: "send failed: \(String(cString: strerror(code)))")
                }
            }
        }

        /// Up to `maximum` bytes; nil at end of stream.
        private func receive(maximum: Int) throws(ProbeFailure) -> [UInt8]? {
            guard let socket else { throw ProbeFailure(kind: .tls, message: "receive failed: not connected") }
            var buffer = [UInt8](repeating: 0, count: maximum)
            while true {
                switch socket.read(into: &buffer) {
                case .bytes(let count): return Array(buffer.prefix(count))
                case .endOfStream: return nil
                case .wouldBlock: _ = try wait(socket, for: Int16(POLLIN))
                case .failed(let code):
                    throw ProbeFailure(kind: .tls, message: "receive failed: \(String(cString: strerror(code)))")
                }
            }
        }

        /// Waits for `events` until the deadline; throws a timeout past it.
        private func wait(_ socket: Socket, for events: Int16) throws(ProbeFailure) -> Bool {
            while true {
                let now = DispatchTime.now().uptimeNanoseconds
                guard now < deadline else {
                    throw ProbeFailure(kind: .timeout, message: "timed out after \(String(format: "%g", source.timeout)) s")
                }
                var entry = pollfd(fd: socket.descriptor, events: events, revents: 0)
                let milliseconds = Int32(min((deadline - now) / 1_000_000 + 1, 60_000))
                let status = poll(&entry, 1, milliseconds)
                if status > 0 { return true }
                if status < 0 && errno != EINTR {
                    throw ProbeFailure(kind: .tls, message: "poll failed: \(String(cString: strerror(errno)))")
                }
            }
        }
    }
}
