import Yams

/// One key of a `hosts:` entry: its name, its line in `man pinwatch`, and
/// how its value is read into the entry. `HostKey.all` is the one list of
/// them: the entry parser loops over it, "unknown key" suggests from it,
/// `ConfigKeyGuide.hosts` prints it, and a test holds docs/CONFIGURATION.md
/// to it. A new key is one row here (and its row in the doc's table).
package struct HostKey: Sendable {
    package let name: String
    /// Its line in the manual's "hosts: entries".
    package let line: String
    /// Said when an entry lacks a required key; nil: the key is optional.
    let missing: String?
    /// Reads the value into the entry, reporting what is wrong; false when
    /// the value was refused. A required key refused ends the entry there.
    let read: @Sendable (inout ConfigDocumentParser, Node, inout HostEntryDraft, inout Config) -> Bool

    /// In the order they are read, which the manual keeps: a row may use
    /// what a row above it read (`starttls` the port, `addresses` the
    /// connect address, `provider`, `labels` and `runbook` win over the
    /// pin set's).
    package static let all: [HostKey] = [
        HostKey(
            name: "host", line: "required: a DNS name or IP address; name:port and [v6]:port set the port too",
            missing: "missing (every entry needs a host)", read: HostKeyReading.host),
        HostKey(name: "port", line: "1 to 65535 (default 443)", read: HostKeyReading.port),
        HostKey(name: "sni", line: "the name sent in the ClientHello and verified (default: host)") { parser, node, draft, _ in
            guard let sni = parser.hostName(node, key: draft.key("sni")) else { return false }
            draft.entry.serverName = sni
            return true
        },
        HostKey(name: "connect", line: "the address dialled instead of resolving host") { parser, node, draft, _ in
            guard let address = parser.hostName(node, key: draft.key("connect")) else { return false }
            draft.entry.connectAddress = address
            return true
        },
        HostKey(name: "trust", line: "system or a PEM bundle (default: the top-level trust)") { parser, node, draft, _ in
            guard let trust = parser.trust(node, key: draft.key("trust")) else { return false }
            draft.entry.trust = trust
            return true
        },
        HostKey(
            name: "pinset", line: "the name of a pinsets: entry whose pins are added to the host's own",
            read: HostKeyReading.pinset),
        HostKey(
            name: "pins", line: "{ca: [PIN...], leaf: [PIN...], auto: [PIN...]}; without any pin the host is unpinned"
        ) { parser, node, draft, _ in
            // The host's own pins first, then its pin set's (read above).
            draft.entry.pins = parser.pinSet(node, key: draft.key("pins"), owner: draft.owner).merged(with: draft.entry.pins)
            return true
        },
        HostKey(name: "provider", line: "the catalogue provider that picks the CA of the host's next certificate") {
            parser, node, draft, defaults in
            if let name = parser.provider(node, key: draft.key("provider"), into: &defaults) { draft.entry.provider = name }
            return true
        },
        HostKey(
            name: "labels", line: "owner key/values (team, env), over its pin set's; in hooks, JSON and pinwatch_host_labels"
        ) { parser, node, draft, _ in
            guard let own = parser.ownerLabels(node, key: draft.key("labels")) else { return false }
            draft.entry.labels.merge(own) { _, own in own }
            return true
        },
        HostKey(name: "runbook", line: "an http(s) URL for the on-call; over its pin set's") { parser, node, draft, _ in
            guard let link = parser.runbook(node, key: draft.key("runbook")) else { return false }
            draft.entry.runbook = link
            return true
        },
        HostKey(name: "addresses", line: "first or all (default: the top-level addresses)", read: HostKeyReading.addresses),
        HostKey(name: "key_types", line: "[ecdsa, rsa] or [] (default: the top-level key_types)") { parser, node, draft, _ in
            guard let offers = parser.keyTypes(node, key: draft.key("key_types")) else { return false }
            draft.entry.keyTypes = offers
            return true
        },
        HostKey(
            name: "starttls", line: "smtp, imap, xmpp or postgres: the plaintext dialogue before the handshake",
            read: HostKeyReading.starttls),
        HostKey(
            name: "revocation", line: "on or off: this host's CRLs and stapled OCSP response (default: the top-level key)"
        ) { parser, node, draft, _ in
            guard let checks = parser.boolean(node, key: draft.key("revocation")) else { return false }
            draft.entry.checksRevocation = checks
            return true
        },
        HostKey(
            name: "silence", line: "{until: DATE, reason: TEXT}: acknowledge the host's present problem until DATE"
        ) { parser, node, draft, _ in
            guard let silence = parser.silence(node, key: draft.key("silence")) else { return false }
            draft.entry.silence = silence
            return true
        },
    ]

    package static let names = all.map(\.name)

    init(
        name: String, line: String, missing: String? = nil,
        read: @escaping @Sendable (inout ConfigDocumentParser, Node, inout HostEntryDraft, inout Config) -> Bool
    ) {
        self.name = name
        self.line = line
        self.missing = missing
        self.read = read
    }
}

/// A `hosts:` entry while `HostKey.all` reads its keys.
struct HostEntryDraft {
    /// Its place in `hosts:`; its path is written only for a problem.
    let index: Int
    var entry: HostConfig
    /// `host:` as written, and the port written in it, for `port:` to agree with.
    var written = ""
    var writtenPort: Int?

    func key(_ name: String) -> String { "hosts[\(index)].\(name)" }
    var owner: String { "host \(entry.host)" }
}
