/// What `check`'s monitoring-plugin options change for one run:
/// `--host` keeps one host of the configuration (one Nagios service per
/// host, with its own perfdata), `-w`/`-c` and `--timeout` replace the
/// configured thresholds and timeout. Each problem is one line, which the
/// plugin says as UNKNOWN.
public struct CheckOverrides: Equatable, Sendable {
    public var host: String?
    /// `--connect`: of the entries `--host` names, the one dialled at this
    /// address (`connect:`), as `NAME:PORT→ADDRESS` picks it.
    public var connect: String?
    public var warningDays: Int?
    public var criticalDays: Int?
    public var timeout: String?

    /// Configured hosts named in the "no such host" line before `+N more`:
    /// the line is a plugin's one line of output.
    static let hostsNamed = 10

    public init(
        host: String? = nil, connect: String? = nil, warningDays: Int? = nil, criticalDays: Int? = nil, timeout: String? = nil
    ) {
        self.host = host
        self.connect = connect
        self.warningDays = warningDays
        self.criticalDays = criticalDays
        self.timeout = timeout
    }

    /// `config` changed for the run, or why it cannot be.
    public func apply(to config: inout Config) -> String? {
        if let warningDays {
            guard ConfigLimits.days.contains(warningDays) else { return "--warning \(warningDays) is out of range 0…3650 days" }
            config.warnDays = warningDays
        }
        if let criticalDays {
            guard ConfigLimits.days.contains(criticalDays) else { return "--critical \(criticalDays) is out of range 0…3650 days" }
            config.criticalDays = criticalDays
        }
        if config.criticalDays > config.warnDays {
            let warning = warningDays != nil ? "--warning" : "warn_days"
            let critical = criticalDays != nil ? "--critical" : "critical_days"
            return "\(critical) \(config.criticalDays) must not be more than \(warning) \(config.warnDays)"
        }
        if let timeout {
            guard let seconds = ConfigDuration.parse(timeout) else {
                return "--timeout \(timeout) is not a duration (such as 10s or 500ms)"
            }
            // One cycle runs: no next cycle to overlap, so the longest interval bounds it.
            if let problem = ConfigLimits.timeoutProblem(seconds, interval: ConfigLimits.interval.upperBound) {
                return "--timeout \(problem)"
            }
            config.timeout = seconds
        }
        if let host {
            let chosen = Self.hosts(named: host, connect: connect, in: config.hosts)
            guard !chosen.isEmpty else { return Self.noSuchHost(host, connect: connect, in: config.hosts) }
            guard chosen.count == 1 else { return Self.severalHosts(host, chosen) }
            config.hosts = chosen
        } else if let connect {
            return "--connect \(connect) picks one of the entries --host names: give --host too"
        }
        return nil
    }

    /// `NAME:PORT` (as the table shows it) first, then `NAME` on any port;
    /// host names compare without case, as DNS does. `NAME:PORT→ADDRESS`
    /// (the row of one of several entries of a name and port, or its ASCII
    /// spellings `->` and `>`) and `connect` keep the entry dialled at
    /// that address.
    public static func hosts(named name: String, connect: String? = nil, in hosts: [HostConfig]) -> [HostConfig] {
        let asked = split(name)
        let wanted = asked.name.lowercased()
        let exact = hosts.filter { $0.displayName.lowercased() == wanted }
        let named = exact.isEmpty ? hosts.filter { $0.host.lowercased() == wanted } : exact
        guard let address = asked.address ?? connect else { return named }
        return named.filter { Self.sameAddress($0.connectAddress, address) }
    }

    /// `NAME:PORT→ADDRESS` as the name and the address.
    static func split(_ text: String) -> (name: String, address: String?) {
        guard let arrow = arrows.lazy.compactMap({ text.range(of: $0) }).first else { return (text, nil) }
        return (String(text[..<arrow.lowerBound]), String(text[arrow.upperBound...]))
    }

    /// The row's arrow, then the ASCII stand-ins `LANG=C` and a shell user type.
    static let arrows = ["→", "->", ">"]

    private static func sameAddress(_ configured: String?, _ asked: String) -> Bool {
        guard let configured else { return false }
        let strip = { (text: String) in text.hasPrefix("[") && text.hasSuffix("]") ? String(text.dropFirst().dropLast()) : text }
        return strip(configured).lowercased() == strip(asked).lowercased()
    }

    /// Several entries: of different ports, the port tells them apart; of
    /// one name and port, the row's address (`connect:`) does.
    private static func severalHosts(_ name: String, _ chosen: [HostConfig]) -> String {
        let rows = chosen.map { host in host.displayName + (host.connectAddress.map { "→\($0)" } ?? "") }
        let listed = "--host \(name) names \(chosen.count) hosts (\(rows.joined(separator: ", ")))"
        if Set(chosen.map { $0.displayName.lowercased() }).count == chosen.count { return "\(listed): add the port" }
        let addresses = chosen.compactMap(\.connectAddress)
        guard let example = chosen.first(where: { $0.connectAddress != nil }), Set(addresses).count == chosen.count else {
            return "\(listed), which no connect: address tells apart: give each entry a connect: of its own"
        }
        let address = example.connectAddress ?? ""
        return "\(listed): pick one as its row names it (--host '\(example.displayName)→\(address)', "
            + "or in ASCII '\(example.displayName)->\(address)') or with --connect \(address)"
    }

    private static func noSuchHost(_ name: String, connect: String?, in hosts: [HostConfig]) -> String {
        guard !hosts.isEmpty else { return "--host \(name): no hosts configured" }
        let asked = split(name)
        if let address = asked.address ?? connect, !Self.hosts(named: asked.name, in: hosts).isEmpty {
            return "--host \(asked.name) has no entry with connect: \(address)"
        }
        var names = hosts.prefix(hostsNamed).map(\.displayName)
        if hosts.count > hostsNamed { names.append("+\(hosts.count - hostsNamed) more") }
        return "--host \(name) is not in the configuration; configured hosts: \(names.joined(separator: ", "))"
    }
}
