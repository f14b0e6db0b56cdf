import Foundation

/// `proxy:` at the top of the configuration.
public enum ProxySetting: Hashable, Sendable {
    /// From the environment (DESIGN §6).
    case auto
    case off
    /// An explicit proxy URL; it applies to every host.
    case url(ProxyRoute)
}

/// One entry of `hosts:`.
public struct HostConfig: Hashable, Sendable {
    public var host: String
    public var port: Int
    /// `sni:` or, by default, `host`.
    public var serverName: String
    public var connectAddress: String?
    public var trust: TrustSource
    public var pinsetName: String?
    /// The host's own pins merged with its pinset's.
    public var pins: PinSet
    /// Line of the entry in the configuration file (1-based), for messages.
    public var line: Int
    /// `provider:` (on the host or its pin set): the catalogue provider
    /// that picks the CA of this host's next certificate.
    public var provider: String? = nil
    /// The `vantage:` of the instance that watched this host, for a host
    /// read back from Prometheus (`watch --prometheus`); nil for a local one.
    public var vantage: String? = nil
    /// `labels:` of its pin set, overridden key by key by its own: who owns
    /// it (`team`, `env`), for routing alerts.
    public var labels: [String: String] = [:]
    /// `runbook:` (its own, else its pin set's): an http(s) URL.
    public var runbook: String? = nil
    /// `addresses:` (the host's, else the global one).
    public var addresses: AddressSelection = .first
    /// `key_types:` (the host's, else the global one); empty: one
    /// handshake with the full offer.
    public var keyTypes: [KeyTypeOffer] = []
    /// `silence:`: a known problem acknowledged until a date.
    public var silence: HostSilence? = nil
    /// `starttls:`: the plaintext dialogue the probe runs before TLS.
    public var starttls: StartTLSProtocol? = nil
    /// `revocation:`: look up the chain's CRLs and read a stapled OCSP response.
    public var checksRevocation = true

    public init(
        host: String, port: Int = 443, serverName: String? = nil, connectAddress: String? = nil,
        trust: TrustSource = .system, pinsetName: String? = nil, pins: PinSet = PinSet(), line: Int = 0
    ) {
        self.host = host
        self.port = port
        self.serverName = serverName ?? host
        self.connectAddress = connectAddress
        self.trust = trust
        self.pinsetName = pinsetName
        self.pins = pins
        self.line = line
    }

    /// What makes two entries the same host across a reload: name, port,
    /// SNI and the address dialled.
    public var identityKey: String {
        "\(host.lowercased()):\(port)/\(serverName.lowercased())@\(connectAddress ?? "")" + (vantage.map { "#\($0)" } ?? "")
    }

    /// `host:port`, with brackets around an IPv6 literal.
    /// `host:port @vantage` for a host read back from a fleet.
    public var displayName: String {
        let name = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        return vantage.map { "\(name) @\($0)" } ?? name
    }
}

/// Where the history store lives.
public enum StateSetting: Hashable, Sendable {
    /// `$XDG_STATE_HOME/pinwatch/state.sqlite` (`~/.local/state/…`).
    case automatic
    case off
    case file(String)

    /// `off`, or a path resolved by `resolve` (relative to the config file).
    public static func parse(_ text: String, resolve: (String) -> String) -> StateSetting {
        text == "off" ? .off : .file(resolve(text))
    }
}

/// A whole, valid configuration (DESIGN §4). Only the loader makes one from
/// a file, and only when every key in it is valid.
public struct Config: Hashable, Sendable {
    /// The file it was read from; nil for a configuration built in memory (demo).
    public var path: String?
    public var interval: TimeInterval
    public var timeout: TimeInterval
    public var concurrency: Int
    public var warnDays: Int
    public var criticalDays: Int
    /// `renew_share:`: past this share of its lifetime a leaf still served
    /// is `renewal_overdue`; nil (`off`) never.
    public var renewShare: Double? = Config.defaultRenewShare
    /// `revocation:` at the top: what every host inherits.
    public var checksRevocation = true
    /// A theme name or a path (relative paths already resolved).
    public var theme: String
    /// `utc:`: every time on screen in UTC instead of the local zone.
    public var utc = false
    public var trust: TrustSource
    public var proxy: ProxySetting
    public var pinsets: [String: PinSet]
    public var hosts: [HostConfig]
    /// `listen:` for `serve` (`host:port`); nil for the default.
    public var listen: String?
    /// `probe_targets:`: what `serve`'s `/probe` may dial.
    public var probeTargets: ProbeTargetPolicy = .configured
    /// `report_uri:`: where `serve` accepts clients' pin-failure reports; nil: off.
    public var reportURI: ReportURISetting?
    /// `shard:`: only the hosts of this shard are watched, once a command
    /// applies it with `keepingShard`.
    public var shard: Shard?
    /// `hooks:`: commands run on every severity transition.
    public var hooks: [HookCommand]
    /// `state:`: the history store's file (resolved), `off`, or nil for the
    /// default under $XDG_STATE_HOME.
    public var state: StateSetting
    /// `history_days:`: how long the store keeps what it recorded.
    public var historyDays: Int
    /// `clients:` as written.
    public var clientSources: [ClientSource] = []
    /// The client releases whose pins were read; their hosts are in `hosts`.
    public var clients: [ClientPolicy] = []
    /// Optional client sources that could not be read, one line each.
    public var clientWarnings: [String] = []
    /// The CA families and providers next chains are judged against: the
    /// built-in data, then `$XDG_DATA_HOME/pinwatch/catalogue/`, then `catalogue:`.
    public var catalogue: Catalogue = .empty
    /// `provider:` of each pin set that declares one (its hosts inherit it).
    public var pinsetProviders: [String: String] = [:]
    /// `labels:` of each pin set that declares them (its hosts inherit them).
    public var pinsetLabels: [String: [String: String]] = [:]
    /// `runbook:` of each pin set that declares one (its hosts inherit it).
    public var pinsetRunbooks: [String: String] = [:]
    /// Every `provider:` written, where it was written: checked against
    /// the catalogue once it is known (`providerProblems`).
    public var providerReferences: [ProviderReference] = []
    /// `catalogue:` as written (the families `catalogue` adds).
    public var catalogueSources: [CatalogueSource] = []
    /// `vantage:`: the network this instance watches from, as a label on
    /// what it exports; nil when it is the only one.
    public var vantage: String? = nil
    /// `deprecated_series:`: the exporter adds the families deprecated in
    /// this release under their old names, for rules not yet moved.
    public var deprecatedSeries = false
    /// `prometheus:`: the server `watch` reads the fleet's verdicts from
    /// instead of probing (`--prometheus` overrides it).
    public var prometheus: String? = nil
    /// `addresses:` at the top: what hosts without their own inherit.
    public var addresses: AddressSelection = .first
    /// `key_types:` at the top: what hosts without their own inherit.
    public var keyTypes: [KeyTypeOffer] = []
    /// `ct:`: where Certificate Transparency is read from; nil (the
    /// default) reads none.
    package var ct: CTSetting? = nil
    /// The logs of `ct: logs:`, read only when a client release requires
    /// Certificate Transparency: what its SCTs are checked with.
    package var sctLogs: SCTLogKeys? = nil

    public init(
        path: String? = nil, interval: TimeInterval = 60, timeout: TimeInterval = 5, concurrency: Int = 32,
        warnDays: Int = 21, criticalDays: Int = 7, theme: String = "default", trust: TrustSource = .system,
        proxy: ProxySetting = .auto, pinsets: [String: PinSet] = [:], hosts: [HostConfig] = [],
        listen: String? = nil, shard: Shard? = nil, hooks: [HookCommand] = [], state: StateSetting = .automatic,
        historyDays: Int = 400
    ) {
        self.state = state
        self.historyDays = historyDays
        self.listen = listen
        self.shard = shard
        self.hooks = hooks
        self.path = path
        self.interval = interval
        self.timeout = timeout
        self.concurrency = concurrency
        self.warnDays = warnDays
        self.criticalDays = criticalDays
        self.theme = theme
        self.trust = trust
        self.proxy = proxy
        self.pinsets = pinsets
        self.hosts = hosts
    }

    /// Where ACME clients renew (certbot, lego, Caddy: two thirds of the
    /// lifetime, which is 30 days before a 90-day leaf expires).
    public static let defaultRenewShare = 2.0 / 3.0

    /// The hosts of `shard` only (all of them without one); `--shard` wins
    /// over `shard:`.
    public func keepingShard(_ override: Shard? = nil) -> Config {
        guard let shard = override ?? shard else { return self }
        var copy = self
        copy.shard = shard
        copy.hosts = hosts.filter(shard.contains)
        return copy
    }
}

/// One problem found in a configuration: file, line and key, and for a pin
/// the host and the pin (DESIGN §4).
public struct ConfigProblem: Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int
    /// Dotted path of the key: `hosts[2].pins.ca[0]`.
    public var key: String
    public var message: String

    public init(file: String, line: Int, key: String, message: String) {
        self.file = file
        self.line = line
        self.key = key
        self.message = message
    }

    /// `file:line: key: message`, leaving out what does not apply (a file
    /// that cannot be read has neither line nor key). An unknown key is the
    /// file's own text, so it is echoed like any input: one line, no
    /// control characters, shortened (found by fuzzing: a tab in a key).
    public var description: String {
        let place = line > 0 ? "\(file):\(line)" : file
        let line = key.isEmpty ? "\(place): \(message)" : "\(place): \(EchoedInput.shortened(key)): \(message)"
        return TerminalText.sanitize(line)
    }
}

/// Thrown by the loader with every problem it found, in file order.
public struct ConfigError: Error, Sendable, CustomStringConvertible {
    public var problems: [ConfigProblem]

    public init(problems: [ConfigProblem]) {
        self.problems = problems
    }

    public var description: String { problems.map(\.description).joined(separator: "\n") }
}
