import Foundation
import Yams

/// One pass over one configuration document, collecting every problem.
struct ConfigDocumentParser: NodeReading {
    let file: String
    let certificateDigests: ConfigLoader.CertificateDigests
    let clientReader: ClientSourceReader?
    let trustStoreReader: ConfigLoader.TrustStoreReader?
    /// Reads `ct: logs:` when a client release requires Certificate
    /// Transparency; nil leaves the keys unread.
    var ctLogReader: ConfigLoader.CTLogReader?
    /// Relative paths in the file (trust, file: pins, theme) start here.
    let baseDirectory: String
    var problems: [ConfigProblem] = []
    /// The files the main file's `include:` and `file_sd:` brought in, read
    /// by the loader; their pin sets and hosts join this file's.
    var included: [IncludedDocument] = []
    /// Trust bundles already read, with the problem found in each (nil: fine).
    private var checkedTrustFiles: [String: String?] = [:]

    /// `currentDirectory`: where a file named without a folder is.
    init(
        file: String, certificateDigests: @escaping ConfigLoader.CertificateDigests, clientReader: ClientSourceReader? = nil,
        currentDirectory: String, trustStoreReader: ConfigLoader.TrustStoreReader? = nil
    ) {
        self.file = file
        self.clientReader = clientReader
        self.trustStoreReader = trustStoreReader
        self.certificateDigests = certificateDigests
        let folder = (file as NSString).deletingLastPathComponent
        self.baseDirectory = folder.isEmpty ? currentDirectory : folder
    }

    mutating func report(line: Int, key: String, _ message: String) {
        problems.append(ConfigProblem(file: file, line: line, key: key, message: message))
    }

    /// Problems are found setting by setting (pinsets before hosts); users
    /// read them top to bottom.
    var problemsInFileOrder: [ConfigProblem] {
        // The main file's first, then each included file's.
        problems.enumerated()
            .sorted {
                ($0.element.file == file ? "" : $0.element.file, $0.element.line, $0.offset)
                    < ($1.element.file == file ? "" : $1.element.file, $1.element.line, $1.offset)
            }
            .map(\.element)
    }

    static let topLevelKeys: Set<String> = [
        "interval", "timeout", "concurrency", "warn_days", "critical_days", "theme", "trust", "proxy",
        "pinsets", "hosts", "listen", "shard", "hooks", "state", "history_days", "clients",
        "probe_targets", "catalogue", "vantage", "prometheus", "deprecated_series",
        "include", "file_sd",
        "addresses", "key_types",
        "utc", "renew_share",
        "report_uri",
        "revocation",
        "ct",
    ]

    mutating func parse(_ root: Node?) -> Config {
        var config = Config(path: file)
        // An empty file is a valid configuration with nothing to watch.
        guard let root, !isNull(root) else { return config }
        guard let pairs = mapping(root, key: "(document)") else { return config }

        var values: [String: Node] = [:]
        for pair in pairs {
            if Self.topLevelKeys.contains(pair.key) {
                values[pair.key] = pair.value
            } else {
                report(pair.keyNode, key: pair.key, "unknown key" + DidYouMean.hint(pair.key, among: Self.topLevelKeys))
            }
        }
        // Settings first: hosts inherit `trust` and use `pinsets`.
        if let node = values["interval"], let value = duration(node, key: "interval") {
            if let problem = ConfigLimits.intervalProblem(value) {
                report(node, key: "interval", problem)
            } else {
                config.interval = value
            }
        }
        if let node = values["timeout"], let value = duration(node, key: "timeout") { config.timeout = value }
        if let problem = ConfigLimits.timeoutProblem(config.timeout, interval: config.interval) {
            // Named where the user can fix it: the timeout line, else the interval's.
            if let node = values["timeout"] {
                report(node, key: "timeout", problem)
            } else if let node = values["interval"] {
                report(node, key: "interval", problem + " (that timeout is the default: set timeout:)")
            }
        }
        if let node = values["concurrency"], let value = integer(node, key: "concurrency", in: ConfigLimits.concurrency) {
            config.concurrency = value
        }
        if let node = values["warn_days"], let value = integer(node, key: "warn_days", in: ConfigLimits.days) {
            config.warnDays = value
        }
        if let node = values["critical_days"], let value = integer(node, key: "critical_days", in: ConfigLimits.days) {
            config.criticalDays = value
        }
        if config.criticalDays > config.warnDays, let node = values["critical_days"] {
            report(node, key: "critical_days", "must not be more than warn_days (\(config.warnDays))")
        }
        if let node = values["renew_share"], let value = renewShare(node) { config.renewShare = value }
        if let node = values["revocation"], let value = boolean(node, key: "revocation") { config.checksRevocation = value }
        if let node = values["theme"], let value = string(node, key: "theme") { config.theme = theme(value) }
        if let node = values["utc"], let value = boolean(node, key: "utc") { config.utc = value }
        if let node = values["trust"], let value = trust(node, key: "trust") { config.trust = value }
        if let node = values["proxy"], let value = proxy(node) { config.proxy = value }
        if let node = values["addresses"], let value = addressSelection(node, key: "addresses") { config.addresses = value }
        if let node = values["key_types"], let value = keyTypes(node, key: "key_types") { config.keyTypes = value }
        if let node = values["pinsets"] { pinsets(node, into: &config) }
        let includedHostLists = includedPinsets(into: &config)
        if let node = values["hosts"] { config.hosts = hosts(node, defaults: &config) }
        includedHosts(includedHostLists, into: &config)
        if let node = values["clients"] {
            config.clientSources = clientSources(node)
            // Only a configuration valid so far is worth reading sources for.
            if problems.isEmpty { loadClients(config.clientSources, reader: clientReader, into: &config) }
        }
        if let node = values["listen"], let value = string(node, key: "listen") {
            if let problem = ListenAddress.problem(value) {
                report(node, key: "listen", problem)
            } else {
                config.listen = value
            }
        }
        if let node = values["probe_targets"], let value = probeTargets(node) { config.probeTargets = value }
        if let node = values["report_uri"] { config.reportURI = reportURI(node) }
        if let node = values["state"], let value = string(node, key: "state") {
            if value.isEmpty {
                report(node, key: "state", "give a file path or off")
            } else {
                config.state = StateSetting.parse(value, resolve: resolve)
            }
        }
        if let node = values["history_days"], let value = integer(node, key: "history_days", in: ConfigLimits.historyDays) {
            config.historyDays = value
        }
        if let node = values["shard"], let value = string(node, key: "shard") {
            if let problem = Shard.problem(value) {
                report(node, key: "shard", problem)
            } else {
                // Applied by the commands, so that --shard can override it.
                config.shard = Shard(parsing: value)
            }
        }
        if let node = values["hooks"] { config.hooks = hooks(node) }
        if let node = values["catalogue"] { config.catalogueSources = catalogueSources(node) }
        if let node = values["vantage"], let value = string(node, key: "vantage") {
            if let problem = Vantage.problem(value) {
                report(node, key: "vantage", problem)
            } else {
                config.vantage = value
            }
        }
        if let node = values["deprecated_series"], let value = boolean(node, key: "deprecated_series") {
            config.deprecatedSeries = value
        }
        if let node = values["prometheus"], let value = string(node, key: "prometheus") {
            if let problem = PrometheusServer.problem(value) {
                report(node, key: "prometheus", problem)
            } else {
                config.prometheus = value
            }
        }
        if let node = values["ct"] { config.ct = certificateTransparency(node) }
        transparencyLogs(values["ct"], into: &config)
        return config
    }

    /// `probe_targets:`: `configured`, `any`, or a list of networks.
    private mutating func probeTargets(_ node: Node) -> ProbeTargetPolicy? {
        if case .scalar = node, let word = string(node, key: "probe_targets"), !word.contains("/") {
            switch word {
            case "configured": return .configured
            case "any": return .any
            default:
                if IPNetwork(parsing: word) == nil {
                    report(
                        node, key: "probe_targets",
                        "expected configured, any or a list of networks (10.0.0.0/8), found \(EchoedInput.quoted(word))")
                    return nil
                }
            }
        }
        guard let items = list(node, key: "probe_targets") else { return nil }
        var networks: [IPNetwork] = []
        for (index, item) in items.enumerated() {
            guard let text = string(item, key: "probe_targets[\(index)]") else { continue }
            guard let network = IPNetwork(parsing: text) else {
                report(
                    item, key: "probe_targets[\(index)]",
                    "not a network in CIDR form (10.0.0.0/8, 2001:db8::/32): \(EchoedInput.quoted(text))")
                continue
            }
            networks.append(network)
        }
        guard !networks.isEmpty else {
            report(node, key: "probe_targets", "an empty list allows nothing: write configured to probe only configured hosts")
            return nil
        }
        return .networks(networks)
    }

    /// `hooks:`: each item an argv list, or `{command: [argv…], timeout: 10s, env: [NAME…]}`.
    private mutating func hooks(_ node: Node) -> [HookCommand] {
        guard let items = list(node, key: "hooks") else { return [] }
        var hooks: [HookCommand] = []
        for (index, item) in items.enumerated() {
            let key = "hooks[\(index)]"
            var commandNode = item
            var timeout = HookCommand.defaultTimeout
            var environment: [String] = []
            if case .mapping = item, let pairs = mapping(item, key: key) {
                guard let command = pairs.first(where: { $0.key == "command" }) else {
                    report(item, key: "\(key).command", "missing (an argv list, e.g. [/usr/bin/logger, -t, pinwatch])")
                    continue
                }
                for pair in pairs where !["command", "timeout", "env"].contains(pair.key) {
                    report(
                        pair.keyNode, key: "\(key).\(pair.key)",
                        "unknown key (expected command, timeout or env)" + DidYouMean.hint(pair.key, among: ["command", "timeout", "env"]))
                }
                if let envNode = pairs.first(where: { $0.key == "env" })?.value {
                    guard let names = hookEnvironment(envNode, key: "\(key).env") else { continue }
                    environment = names
                }
                commandNode = command.value
                if let timeoutNode = pairs.first(where: { $0.key == "timeout" })?.value {
                    guard let value = duration(timeoutNode, key: "\(key).timeout") else { continue }
                    guard value <= 600 else {
                        report(timeoutNode, key: "\(key).timeout", "\(ConfigDuration.describe(value)) is out of range (at most 10m)")
                        continue
                    }
                    timeout = value
                }
            }
            guard case .sequence = commandNode, let words = list(commandNode, key: "\(key).command") else {
                report(commandNode, key: key, "expected an argv list such as [/usr/bin/logger, -t, pinwatch] (no shell is used)")
                continue
            }
            let arguments = words.compactMap { string($0, key: "\(key).command") }
            guard arguments.count == words.count, let program = arguments.first else { continue }
            guard program.hasPrefix("/") || program.hasPrefix("./") || !program.contains("/") else {
                report(commandNode, key: key, "\(EchoedInput.quoted(program)): give an absolute path, ./path or a name on PATH")
                continue
            }
            hooks.append(
                HookCommand(
                    arguments: arguments.map { $0.hasPrefix("./") ? resolve($0) : $0 }, timeout: timeout, environment: environment))
        }
        return hooks
    }

    /// `env:` of a hook: names of variables it may see beyond the minimal
    /// set, each a plain name (no `=`, no value: values stay in the
    /// process's environment, out of the file).
    private mutating func hookEnvironment(_ node: Node, key: String) -> [String]? {
        guard case .sequence = node, let items = list(node, key: key) else {
            report(node, key: key, "expected a list of variable names, e.g. [SLACK_WEBHOOK_URL]")
            return nil
        }
        var names: [String] = []
        for item in items {
            guard let name = string(item, key: key) else { return nil }
            guard HookEnvironment.isVariableName(name) else {
                report(item, key: key, "\(EchoedInput.quoted(name)) is not a variable name (letters, digits, _)")
                return nil
            }
            names.append(name)
        }
        return names
    }

    /// `0.67`, or `off`: a share of a lifetime, above nothing and below all
    /// of it (at 1 the leaf has expired, which `expired` says).
    private mutating func renewShare(_ node: Node) -> Double?? {
        guard let text = string(node, key: "renew_share") else { return nil }
        if text == "off" { return .some(nil) }
        guard let value = Double(text), value.isFinite, value > 0, value < 1 else {
            report(
                node, key: "renew_share",
                "expected a share of the lifetime between 0 and 1 (0.67) or off, found \(EchoedInput.quoted(text))")
            return nil
        }
        return .some(value)
    }

    private mutating func duration(_ node: Node, key: String) -> TimeInterval? {
        guard let text = string(node, key: key) else { return nil }
        guard let value = ConfigDuration.parse(text) else {
            report(node, key: key, "bad duration \(EchoedInput.quoted(text)) (expected e.g. 500ms, 60s, 5m, 1h)")
            return nil
        }
        return value
    }

    /// A bare name is a theme under themes/; anything that looks like a file is a path.
    private func theme(_ value: String) -> String {
        let looksLikePath = value.contains("/") || value.hasSuffix(".yaml") || value.hasSuffix(".yml")
        return looksLikePath ? resolve(value) : value
    }

    mutating func trust(_ node: Node, key: String) -> TrustSource? {
        guard let value = string(node, key: key) else { return nil }
        if value == "system" { return .system }
        let path = resolve(value)
        // Read once per file however many hosts name it: a bundle that
        // holds no certificate would fail every probe, so it fails here.
        let problem: String?
        if let known = checkedTrustFiles[path] {
            problem = known
        } else {
            do {
                let certificates = try certificateDigests(path)
                problem = certificates.isEmpty ? "trust file \(path) holds no certificate" : nil
            } catch {
                problem = "trust file \(error)"
            }
            checkedTrustFiles[path] = .some(problem)
        }
        if let problem {
            report(node, key: key, problem)
            return nil
        }
        return .bundle(path)
    }

    private mutating func proxy(_ node: Node) -> ProxySetting? {
        // Unquoted `off` is YAML 1.1's false; both spellings mean off.
        if case .scalar(let scalar) = node, ["off", "false", "no"].contains(scalar.string.lowercased()) {
            return .off
        }
        guard let value = string(node, key: "proxy") else { return nil }
        if value == "auto" { return .auto }
        do {
            return .url(try ProxyRoute.parse(url: value, source: "config"))
        } catch {
            report(node, key: "proxy", "\(error) (expected auto, off or http://host:port)")
            return nil
        }
    }

    func resolve(_ path: String) -> String {
        let expanded = (path as NSString).expandingTildeInPath
        if expanded.hasPrefix("/") { return expanded }
        return (baseDirectory as NSString).appendingPathComponent(expanded)
    }
}
