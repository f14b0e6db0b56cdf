import Foundation
import PinwatchProbe

/// A minimal HTTP CONNECT proxy on 127.0.0.1, for the proxy-layer tests
/// and the demo's "behind a proxy" host.
///
/// It never resolves names through DNS (the tests must work offline):
/// targets are IP literals, `localhost`, or names mapped in
/// `hostOverrides`; anything else is answered 502 like an unreachable host.
///
/// `@unchecked Sendable`: socket work runs on the loop thread; the log and
/// counters are locked.
package final class ConnectProxyServer: LocalServer, @unchecked Sendable {
    /// One request the proxy received.
    package struct Request: Hashable, Sendable {
        package var method: String
        /// The target as sent, e.g. `127.0.0.1:8443` or `api.example.com:443`.
        package var target: String
        /// The Proxy-Authorization header, when the client sent one.
        package var proxyAuthorization: String?

        package var hadProxyAuthorization: Bool { proxyAuthorization != nil }
    }

    package let core: ListeningServerCore
    private let log: ProxyRequestLog

    /// - Parameters:
    ///   - rejectAll: answer every request `403 Forbidden` (a proxy policy
    ///     that blocks the host).
    ///   - hostOverrides: name → IP literal, the proxy's private DNS.
    ///   - interceptionPort: a TLS-inspecting proxy: every tunnel goes to
    ///     this local port, whatever the CONNECT target, where a server
    ///     presents a certificate from the proxy's own CA.
    ///   - stallTimeout: a tunnel idle this long is closed.
    package init(
        rejectAll: Bool = false, hostOverrides: [String: String] = [:], interceptionPort: Int? = nil,
        stallTimeout: TimeInterval = 5
    ) throws {
        let log = ProxyRequestLog()
        let policy = ProxyPolicy(
            rejectAll: rejectAll, hostOverrides: hostOverrides, interceptionPort: interceptionPort, stallTimeout: stallTimeout)
        core = try ListeningServerCore { socket, owner in
            ProxySession(socket: socket, owner: owner, policy: policy, log: log)
        }
        self.log = log
    }

    deinit {
        core.stop()
    }

    /// Every request received, in arrival order.
    package var requests: [Request] { log.requests }
    /// The CONNECT targets seen, in arrival order.
    package var connectTargets: [String] {
        log.requests.filter { $0.method == "CONNECT" }.map(\.target)
    }
}

/// What a proxy session needs to know about its server's settings.
struct ProxyPolicy {
    var rejectAll: Bool
    var hostOverrides: [String: String]
    var interceptionPort: Int?
    var stallTimeout: TimeInterval

    /// The address to dial for a CONNECT host, without DNS.
    func address(for host: String, port: Int) -> SocketAddress? {
        if let interceptionPort { return SocketAddress.numeric("127.0.0.1", port: interceptionPort) }
        if let mapped = hostOverrides[host] { return SocketAddress.numeric(mapped, port: port) }
        if host.lowercased() == "localhost" { return SocketAddress.numeric("127.0.0.1", port: port) }
        return SocketAddress.numeric(host, port: port)
    }
}

/// The requests a proxy saw; written on the loop thread, read by tests.
///
/// `@unchecked Sendable`: `entries` is only touched under `lock`.
final class ProxyRequestLog: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [ConnectProxyServer.Request] = []

    func record(_ request: ConnectProxyServer.Request) {
        lock.lock()
        entries.append(request)
        lock.unlock()
    }

    var requests: [ConnectProxyServer.Request] {
        lock.lock()
        defer { lock.unlock() }
        return entries
    }
}
