import PinwatchCore

extension CTWatchedNames {
    /// The names a configuration watches in Certificate Transparency: each
    /// host's name and `sni`, and every name the client releases pin (a
    /// pattern, or a rule that includes subdomains, watches its base and
    /// every name below it).
    package init(config: Config) {
        var patterns: [String] = []
        for host in config.hosts {
            patterns.append(host.host)
            patterns.append(host.serverName)
        }
        for client in config.clients {
            for rule in client.pins.rules {
                let domain = rule.domain.lowercased()
                if domain.hasPrefix("**.") {
                    patterns.append("." + domain.dropFirst(3))
                } else if domain.hasPrefix("*.") {
                    patterns.append("." + domain.dropFirst(2))
                } else if rule.includeSubdomains {
                    patterns.append("." + domain)
                } else {
                    patterns.append(domain)
                }
            }
        }
        self.init(patterns)
    }
}
