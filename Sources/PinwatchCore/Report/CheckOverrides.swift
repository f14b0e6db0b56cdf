/// What `check`'s monitoring-plugin options change for one run:
/// `--host` keeps one host of the configuration (one Nagios service per
/// host, with its own perfdata), `-w`/`-c` and `--timeout` replace the
/// configured thresholds and timeout. Each problem is one line, which the
/// plugin says as UNKNOWN.
public struct CheckOverrides: Equatable, Sendable {
    public var host: String?
    public var warningDays: Int?
    public var criticalDays: Int?
    public var timeout: String?

    /// Configured hosts named in the "no such host" line before `+N more`:
    /// the line is a plugin's one line of output.
    static let hostsNamed = 10

    public init(host: String? = nil, warningDays: Int? = nil, criticalDays: Int? = nil, timeout: String? = nil) {
        self.host = host
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
            let chosen = Self.hosts(named: host, in: config.hosts)
            guard !chosen.isEmpty else { return Self.noSuchHost(host, in: config.hosts) }
            guard chosen.count == 1 else {
                return "--host \(host) names \(chosen.count) hosts (\(chosen.map(\.displayName).joined(separator: ", "))): add the port"
            }
            config.hosts = chosen
        }
        return nil
    }

    /// `NAME:PORT` (as the table shows it) first, then `NAME` on any port;
    /// host names compare without case, as DNS does.
    public static func hosts(named name: String, in hosts: [HostConfig]) -> [HostConfig] {
        let wanted = name.lowercased()
        let exact = hosts.filter { $0.displayName.lowercased() == wanted }
        return exact.isEmpty ? hosts.filter { $0.host.lowercased() == wanted } : exact
    }

    private static func noSuchHost(_ name: String, in hosts: [HostConfig]) -> String {
        guard !hosts.isEmpty else { return "--host \(name): no hosts configured" }
        var names = hosts.prefix(hostsNamed).map(\.displayName)
        if hosts.count > hostsNamed { names.append("+\(hosts.count - hostsNamed) more") }
        return "--host \(name) is not in the configuration; configured hosts: \(names.joined(separator: ", "))"
    }
}
