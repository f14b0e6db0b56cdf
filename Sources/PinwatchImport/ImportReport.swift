import Foundation
import PinwatchCore

/// `pinwatch import`'s output: a configuration stanza to paste, or JSON.
package enum ImportReport {
    /// `pinsets:` (one per domain pattern, pins under `auto:` since a
    /// client file does not say which level a pin is for) and `hosts:` for
    /// every concrete name, with comments naming sources, patterns and
    /// expirations. Every value from a file is quoted or in a comment.
    package static func yaml(_ sources: [ImportedPins]) -> String {
        var header = [
            "# pinwatch import: tiers are decided by the live chain (auto:): a pin that",
            "# matches the leaf counts as leaf (leaf_only), any other level as ca (ok).",
        ]
        var pinsets: [String] = []
        var hosts: [String] = []
        for source in sources {
            header.append(
                "# \(FileText.comment(source.file)): \(source.format.title), \(source.rules.count) rule\(source.rules.count == 1 ? "" : "s")"
            )
        }
        // One pinset per domain, whichever files name it: a host takes one
        // pinset, and `clients:` is the way to keep releases apart.
        // A list entry that failed its signature names a host with no pins:
        // the notes say so, and an empty pinset would not load.
        for group in grouped(sources.flatMap(\.rules).filter { !$0.pins.isEmpty }) {
            pinsets.append("  # \(describe(group.rules))")
            pinsets.append("  \(PinStanza.scalar(group.domain)):")
            pinsets += tiers(of: group.rules)
            if group.domain.hasPrefix("*") {
                hosts.append("  # \(FileText.comment(group.domain)) is a pattern: list the hosts it covers with that pinset")
            } else if group.rules.allSatisfy(\.includeSubdomains) {
                // As under clients:, the base may not even resolve.
                hosts.append(
                    "  # \(FileText.comment(group.domain)) and its subdomains is a pattern: list the hosts the app calls with that pinset")
            } else {
                hosts.append("  - host: \(PinStanza.scalar(group.domain))")
                hosts.append("    pinset: \(PinStanza.scalar(group.domain))")
            }
        }
        var lines = header + ["pinsets:"] + pinsets + ["hosts:"] + hosts
        let notes = sources.flatMap(\.notes)
        if !notes.isEmpty {
            lines.append("# notes:")
            lines += notes.map { "#   \(FileText.comment($0.origin)): \(FileText.comment($0.message))" }
        }
        lines.append("# or read the files live, so the pins never drift from the app:")
        lines.append("# clients:")
        for source in sources {
            let key =
                source.format == .dynamicList
                ? "dynamic_list: {file: \(FileText.comment(source.file)), public_key: …}"
                : "\(source.format.rawValue): \(FileText.comment(source.file))"
            lines.append("#   - {name: \"<release>\", \(key)}")
            let transparent = source.rules.filter { $0.certificateTransparency == true }.map(\.domain)
            if !transparent.isEmpty {
                lines.append(
                    "#     requires Certificate Transparency for \(FileText.comment(transparent.joined(separator: ", "))): "
                        + "give ct: {logs: built-in} (or a log list file) so their SCTs are checked")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The pinset's lists: ATS names each identity's tier, so its pins go
    /// under `ca:` and `leaf:`; every other format's under `auto:`.
    private static func tiers(of rules: [ClientPinRule]) -> [String] {
        var lines: [String] = []
        let ats = rules.compactMap(\.identities)
        let lists: [(key: String, pins: [(Pin, String)])]
        if ats.isEmpty {
            lists = [("auto", rules.flatMap { rule in rule.pins.map { ($0, rule.origin) } })]
        } else {
            // A pinset passes on any one pin; ATS wants each list to match.
            lines.append("    # ATS checks these two lists apart and both must match: clients: with ats: judges that")
            lists = [
                ("ca", rules.flatMap { rule in (rule.identities?.ca ?? []).map { ($0, rule.origin) } }),
                ("leaf", rules.flatMap { rule in (rule.identities?.leaf ?? []).map { ($0, rule.origin) } }),
            ]
        }
        for list in lists where !list.pins.isEmpty {
            lines.append("    \(list.key):")
            var seen = Set<Pin>()
            for (pin, origin) in list.pins where seen.insert(pin).inserted {
                lines.append("      - \(PinStanza.scalar(pin.text))   # \(FileText.comment(origin))")
            }
        }
        return lines
    }

    package static func json(_ sources: [ImportedPins]) -> String {
        JSONValue.object([
            ("version", .int(1)),
            (
                "sources",
                .array(
                    sources.map { source in
                        .object([
                            ("file", .string(source.file)),
                            ("format", .string(source.format.rawValue)),
                            ("rules", .array(source.rules.map(rule))),
                            (
                                "notes",
                                .array(source.notes.map { .object([("origin", .string($0.origin)), ("message", .string($0.message))]) })
                            ),
                        ])
                    })
            ),
        ]).render() + "\n"
    }

    private static func rule(_ rule: ClientPinRule) -> JSONValue {
        .object(
            [
                ("domain", .string(rule.domain)),
                ("include_subdomains", .bool(rule.includeSubdomains)),
                ("pins", .array(rule.pins.map { .string($0.text) })),
                ("expiration", .optional(rule.expiration.map(DateText.iso8601))),
                ("enforced", .bool(rule.enforced)),
                ("origin", .string(rule.origin)),
            ] + (rule.identities.map { [("identities", identities($0))] } ?? [])
                + (rule.certificateTransparency.map { [("certificate_transparency", .bool($0))] } ?? []))
    }

    /// ATS's two lists: null when the key is absent, [] when it allows nothing.
    private static func identities(_ identities: PinnedIdentities) -> JSONValue {
        func list(_ pins: [Pin]?) -> JSONValue { pins.map { .array($0.map { .string($0.text) }) } ?? .null }
        return .object([("ca", list(identities.ca)), ("leaf", list(identities.leaf))])
    }

    /// Rules of one source by domain, in first-seen order (a signed list
    /// has one entry per certificate; Android may repeat a domain).
    private static func grouped(_ rules: [ClientPinRule]) -> [(domain: String, rules: [ClientPinRule])] {
        var order: [String] = []
        var byDomain: [String: [ClientPinRule]] = [:]
        for rule in rules {
            if byDomain[rule.domain] == nil { order.append(rule.domain) }
            byDomain[rule.domain, default: []].append(rule)
        }
        return order.map { ($0, byDomain[$0]!) }
    }

    private static func describe(_ rules: [ClientPinRule]) -> String {
        let first = rules[0]
        let subdomains = first.identities == nil ? " and its subdomains" : " and the names one label below it"
        var text = first.domain + (first.includeSubdomains ? subdomains : "")
        text += ", from " + rules.map(\.origin).joined(separator: ", ")
        if let expiration = rules.compactMap(\.expiration).max() {
            text += "; pins expire \(DateText.day(expiration))"
        }
        if !rules.contains(where: \.enforced) { text += "; not enforced (report only)" }
        return FileText.comment(text)
    }
}
