import Foundation

/// `GET /probe?target=HOST[:PORT]&pinset=NAME`, the blackbox/ssl_exporter
/// multi-target style: which host to probe now and with which pins.
public struct ProbeQuery: Equatable, Sendable {
    public var target: HostPort
    public var pinset: String?

    /// `name=value&…`, percent-decoded; `+` is a space, as forms send it.
    public static func items(fromQueryString query: String) -> [(name: String, value: String)] {
        // At most 64 items: a longer query is refused by `parse` anyway.
        guard !query.isEmpty else { return [] }
        return query.split(separator: "&", omittingEmptySubsequences: true).prefix(64).map { pair in
            let halves = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ text: Substring?) -> String {
                let plain = (text.map(String.init) ?? "").replacingOccurrences(of: "+", with: " ")
                // A broken escape stays as typed: the parser then refuses it.
                return plain.removingPercentEncoding ?? plain
            }
            return (decode(halves.first), decode(halves.count > 1 ? halves[1] : nil))
        }
    }

    /// From the decoded query items; a problem is one sentence for a 400.
    public static func parse(_ items: [(name: String, value: String)]) -> Result<ProbeQuery, ProbeQueryError> {
        guard items.count <= 8 else { return .failure(ProbeQueryError("too many query parameters")) }
        for item in items where !["target", "pinset", "module"].contains(item.name) {
            return .failure(ProbeQueryError("unknown parameter \(EchoedInput.quoted(item.name)) (expected target and pinset)"))
        }
        let targets = items.filter { $0.name == "target" }
        guard targets.count == 1, let text = targets.first?.value, !text.isEmpty else {
            return .failure(ProbeQueryError("give exactly one target=HOST[:PORT]"))
        }
        if let hint = HostURLHint.probeTargetProblem(text) { return .failure(ProbeQueryError(hint)) }
        let target: HostPort
        do {
            target = try HostPort(parsing: text)
        } catch {
            return .failure(ProbeQueryError("target \(error.description)"))
        }
        let pinsets = items.filter { $0.name == "pinset" }
        guard pinsets.count <= 1 else { return .failure(ProbeQueryError("give at most one pinset")) }
        return .success(ProbeQuery(target: target, pinset: pinsets.first?.value))
    }

    /// The host to probe: the configured host of that name and port (its
    /// pins, SNI, connect address and trust) when there is one, else a host
    /// with the configuration's trust. A named pinset replaces the host's
    /// pins: the scrape asks whether the target matches that set, and the
    /// host's own pins would hide a mismatch. A target that is not
    /// configured is refused under `probe_targets: configured`, the default.
    public func host(in config: Config) -> Result<HostConfig, ProbeQueryError> {
        let set = pinset.flatMap { config.pinsets[$0] }
        if let pinset, set == nil {
            return .failure(
                ProbeQueryError("unknown pinset \(EchoedInput.quoted(pinset))" + DidYouMean.hint(pinset, among: config.pinsets.keys)))
        }
        let configured = configuredHost(in: config)
        if configured == nil, config.probeTargets == .configured {
            return .failure(
                ProbeQueryError(
                    forbidden: "\(EchoedInput.quoted("\(target.host):\(target.port)")) is not a configured host, "
                        + "and probe_targets: configured allows no other"))
        }
        var host = configured ?? HostConfig(host: target.host, port: target.port, trust: config.trust)
        if let pinset, let set {
            host.pins = set
            host.pinsetName = pinset
        }
        return .success(host)
    }

    /// The networks the target's resolved address must lie in before it is
    /// dialled: nil for a configured host, or unless `probe_targets:`
    /// lists networks.
    public func requiredNetworks(in config: Config) -> [IPNetwork]? {
        guard case .networks(let networks) = config.probeTargets, configuredHost(in: config) == nil else { return nil }
        return networks
    }

    private func configuredHost(in config: Config) -> HostConfig? {
        config.hosts.first { $0.host.lowercased() == target.host.lowercased() && $0.port == target.port }
    }
}

public struct ProbeQueryError: Error, Equatable, Sendable, CustomStringConvertible {
    public var description: String
    /// A well-formed request that `probe_targets:` does not allow (403).
    public var isForbidden = false

    public init(_ description: String) {
        self.description = description
    }

    public init(forbidden description: String) {
        self.description = description
        isForbidden = true
    }
}
