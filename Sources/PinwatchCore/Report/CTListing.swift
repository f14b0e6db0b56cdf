import Foundation

/// `pinwatch ct`: for each watched host, what Certificate Transparency
/// logged for its name in this step, with its verdict per release, and
/// where each followed log stands. Certificate text is sanitised for the
/// terminal; JSON escapes everything outside printable ASCII.
package enum CTListing {
    package struct Host: Sendable {
        package var config: HostConfig
        package var facts: CTHostFacts

        package init(config: HostConfig, facts: CTHostFacts) {
            self.config = config
            self.facts = facts
        }
    }

    package static func text(_ hosts: [Host], logs: [CTLogState]) -> String {
        var out = ""
        for host in hosts {
            let name = TerminalText.sanitize(host.config.displayName)
            let count = host.facts.logged.count
            out += "\(name): \(count == 0 ? "nothing" : count == 1 ? "1 certificate" : "\(count) certificates") logged\n"
            for logged in host.facts.logged {
                let kind = logged.precertificate ? "precertificate" : "certificate"
                out += "  \(DateText.readableUTC(logged.loggedAt))  \(TerminalText.sanitize(logged.log)) #\(logged.index)  "
                out += "\(kind) \(logged.serial)\n"
                out += "    issuer  \(TerminalText.sanitize(logged.issuer))\n"
                out += "    valid   \(DateText.readableUTC(logged.notBefore)) → \(DateText.readableUTC(logged.notAfter))\n"
                out += "    verdict \(TerminalText.sanitize(CTLoggedText.verdict(logged)))\n"
            }
        }
        out += "logs:\n"
        for log in logs {
            let size = log.verifiedSize.map { "verified to \($0) entries" } ?? "not verified yet"
            var line = "  \(TerminalText.sanitize(log.log)): \(size)"
            if let progress = log.catchingUp { line += "; catching up: \(progress.read) of \(progress.of) new entries read" }
            if log.misbehaving { line += "; FAILED VERIFICATION, its entries are ignored" }
            if !log.errors.isEmpty {
                line += " (errors: " + log.errors.keys.sorted().map { "\($0) \(log.errors[$0] ?? 0)" }.joined(separator: ", ") + ")"
            }
            out += line + "\n"
        }
        return out
    }

    package static func json(_ hosts: [Host], logs: [CTLogState], generatedAt: Date) -> String {
        JSONValue.object([
            ("generated_at", .string(DateText.iso8601(generatedAt))),
            (
                "hosts",
                .array(
                    hosts.map { host in
                        .object([
                            ("host", .string(host.config.host)),
                            ("port", .int(host.config.port)),
                            ("sni", .string(host.config.serverName)),
                            ("ct", CTJSON.logged(host.facts)),
                        ])
                    })
            ),
            (
                "logs",
                .array(
                    logs.map { log in
                        .object([
                            ("log", .string(log.log)),
                            ("verified_size", log.verifiedSize.map { .int(Int(clamping: $0)) } ?? .null),
                            ("misbehaving", .bool(log.misbehaving)),
                            (
                                "catching_up",
                                log.catchingUp.map {
                                    .object([("read", .int(Int(clamping: $0.read))), ("of", .int(Int(clamping: $0.of)))])
                                }
                                    ?? .null
                            ),
                            ("errors", .object(log.errors.keys.sorted().map { ($0, .int(log.errors[$0] ?? 0)) })),
                        ])
                    })
            ),
        ]).render() + "\n"
    }
}
