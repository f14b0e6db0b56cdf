import Yams

extension ConfigDocumentParser {
    /// What an `include:`d file may hold: hosts and the pin sets they use.
    /// Global settings stay in the main file, where one reads them all.
    static let includedKeys = ["hosts", "pinsets"]

    /// The pin sets of `include:`d files, after the main file's (hosts of
    /// any file may name them); returns each file's `hosts:` for `includedHosts`.
    mutating func includedPinsets(into config: inout Config) -> [(path: String, hosts: Node)] {
        var hostLists: [(path: String, hosts: Node)] = []
        for document in included where document.kind == .configuration {
            guard let root = document.root else { continue }
            var parser = includedParser(document.path)
            defer { problems += parser.problems }
            guard !parser.isNull(root), let pairs = parser.mapping(root, key: "(document)") else { continue }
            for pair in pairs {
                switch pair.key {
                case "hosts":
                    hostLists.append((document.path, pair.value))
                case "pinsets":
                    if case .mapping(let sets) = pair.value {
                        for (nameNode, _) in sets {
                            guard let name = nameNode.scalar?.string, config.pinsets[name] != nil else { continue }
                            parser.report(
                                nameNode, key: "pinsets.\(name)", "pinset \(name) is already defined (in \(file) or an earlier include)")
                        }
                    }
                    parser.pinsets(pair.value, into: &config)
                case "include", "file_sd":
                    parser.report(
                        pair.keyNode, key: pair.key,
                        "an included file cannot include others: list every \(pair.key): in the main file \(file)")
                default:
                    parser.report(
                        pair.keyNode, key: pair.key,
                        (Self.topLevelKeys.contains(pair.key)
                            ? "a global setting: it belongs in the main file \(file); an included file holds only hosts: and pinsets:"
                            : "unknown key (an included file holds only hosts: and pinsets:)")
                            + DidYouMean.hint(pair.key, among: Self.includedKeys))
                }
            }
        }
        return hostLists
    }

    /// The hosts of `include:`d and `file_sd:` files, after the main
    /// file's; a host already watched (same host, port, SNI and connect) in
    /// another file is a duplicate, named with where it first was.
    mutating func includedHosts(_ hostLists: [(path: String, hosts: Node)], into config: inout Config) {
        var firstSeen: [String: String] = [:]
        for host in config.hosts where firstSeen[host.identityKey] == nil {
            firstSeen[host.identityKey] = "\(file):\(host.line)"
        }
        var lists = hostLists
        for document in included where document.kind == .fileSD {
            if let root = document.root, let hosts = fileSDHosts(root, path: document.path) { lists.append((document.path, hosts)) }
        }
        for (path, node) in lists {
            var parser = includedParser(path)
            let hosts = parser.hosts(node, defaults: &config, existing: config.hosts.count)
            for host in hosts {
                if let first = firstSeen[host.identityKey] {
                    parser.report(line: host.line, key: "hosts", "duplicate host \(host.displayName), first at \(first)")
                    continue
                }
                firstSeen[host.identityKey] = "\(path):\(host.line)"
                config.hosts.append(host)
            }
            problems += parser.problems
        }
    }

    /// A file_sd document (`[{targets: [host:port…], labels: {…}}]`) as the
    /// `hosts:` list it means: each target a host whose labels are the
    /// group's, less Prometheus's own (`__`-prefixed); a `pinset` label
    /// names the pin set the hosts use.
    private mutating func fileSDHosts(_ root: Node, path: String) -> Node? {
        var parser = includedParser(path)
        defer { problems += parser.problems }
        guard !parser.isNull(root) else { return nil }
        guard case .sequence = root, let groups = parser.list(root, key: "(document)") else {
            parser.report(root, key: "(document)", "expected a file_sd list: [{\"targets\": [\"host:443\"], \"labels\": {…}}]")
            return nil
        }
        // Counted before any entry is built: the bound is what keeps a
        // generated file of 100,000 targets cheap to refuse.
        let listed = groups.reduce(0) { $0 + ($1["targets"]?.sequence?.count ?? 0) }
        if let problem = ConfigLimits.hostsProblem(listed, existing: 0, counted: "targets") {
            parser.report(root, key: "(document)", problem)
            return nil
        }
        var entries: [Node] = []
        for (index, group) in groups.enumerated() {
            let key = "[\(index)]"
            guard let pairs = parser.mapping(group, key: key) else { continue }
            if !pairs.contains(where: { $0.key == "targets" }) {
                parser.report(group, key: "\(key).targets", "missing (a file_sd group lists its hosts in targets: [\"host:443\"])")
            }
            var targets: [Node] = []
            var labels: [(Node, Node)] = []
            var pinset: Node?
            for pair in pairs {
                switch pair.key {
                case "targets":
                    targets = parser.list(pair.value, key: "\(key).targets") ?? []
                case "labels":
                    guard let labelPairs = parser.mapping(pair.value, key: "\(key).labels") else { continue }
                    for label in labelPairs where !label.key.hasPrefix("__") {
                        if label.key == "pinset" { pinset = label.value } else { labels.append((label.keyNode, label.value)) }
                    }
                default:
                    parser.report(
                        pair.keyNode, key: "\(key).\(pair.key)",
                        "unknown key (a file_sd group has targets and labels)" + DidYouMean.hint(pair.key, among: ["targets", "labels"]))
                }
            }
            for target in targets {
                var entry: [(Node, Node)] = [(Node("host"), target)]
                if !labels.isEmpty { entry.append((Node("labels"), .mapping(Node.Mapping(labels, .implicit, .any, group.mark)))) }
                if let pinset { entry.append((Node("pinset"), pinset)) }
                entries.append(.mapping(Node.Mapping(entry, .implicit, .any, target.mark)))
            }
        }
        return .sequence(Node.Sequence(entries))
    }

    private func includedParser(_ path: String) -> ConfigDocumentParser {
        ConfigDocumentParser(
            file: path, certificateDigests: certificateDigests, clientReader: clientReader, currentDirectory: baseDirectory,
            trustStoreReader: trustStoreReader)
    }
}
