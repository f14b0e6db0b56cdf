/// Decides which proxy, if any, applies to a host (DESIGN §6).
public struct ProxyResolver: Sendable {
    /// `http_proxy` counts too: clients like the seed's refuse on any proxy.
    public static let variables = ["https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "http_proxy", "HTTP_PROXY"]

    private let environmentRoute: ProxyRoute?
    private let noProxy: NoProxyRule

    /// Reads the environment once, not once per host and poll.
    ///
    /// A variable that is set but cannot be parsed still counts: clients
    /// refuse on any proxy, so its hosts get an unusable route whose probe
    /// fails with the reason, never a silent direct connection.
    public init(environment: [String: String]) {
        let chosen = Self.variables.lazy
            .compactMap { name in environment[name].map { (name, $0.trimmingWhitespace()) } }
            .first { !$0.1.isEmpty }
        environmentRoute = chosen.map { name, value in
            do {
                return try ProxyRoute.parse(url: value, source: name)
            } catch {
                return ProxyRoute.unusable(source: name, problem: "\(name): \(error)")
            }
        }
        let exclusions = [environment["no_proxy"], environment["NO_PROXY"]].compactMap { $0 }.first { !$0.isEmpty }
        noProxy = NoProxyRule(exclusions ?? "")
    }

    /// What the header's proxy indicator shows: the proxy that applies to
    /// hosts not excluded by `no_proxy`, and where it came from.
    public func indicator(setting: ProxySetting) -> ProxyRoute? {
        switch setting {
        case .off: return nil
        case .url(let route): return route
        case .auto: return environmentRoute
        }
    }

    /// The config's URL wins over the environment; `no_proxy` only narrows the environment's.
    public func route(forHost host: String, setting: ProxySetting) -> ProxyRoute? {
        switch setting {
        case .off: return nil
        case .url(let route): return route
        case .auto:
            guard let environmentRoute, !noProxy.excludes(host: host) else { return nil }
            return environmentRoute
        }
    }
}

extension Config {
    /// One probe target per host, in configuration order.
    public func probeTargets(environment: [String: String]) -> [ProbeTarget] {
        let resolver = ProxyResolver(environment: environment)
        return hosts.map { host in
            var target = ProbeTarget(
                host: host.host, port: host.port, serverName: host.serverName, connectAddress: host.connectAddress,
                trust: host.trust, proxy: resolver.route(forHost: host.host, setting: proxy), timeout: timeout,
                starttls: host.starttls)
            target.checksRevocation = host.checksRevocation
            if let sctLogs, clients.contains(where: { $0.requiresCT(under: $0.rules(for: host.serverName)) }) {
                target.sctLogs = sctLogs
            }
            return target
        }
    }
}
