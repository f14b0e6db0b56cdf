import Yams

extension ConfigDocumentParser {
    /// Identity of a host for duplicate detection: what is dialled and
    /// verified. The same name behind two backends (`connect:`) is two hosts.
    private struct HostIdentity: Hashable {
        var host: String
        var port: Int
        var serverName: String
        var connect: String
    }

    /// `hosts:`, in configuration order; duplicates found with a set so
    /// that 10,000 hosts stay linear.
    mutating func hosts(_ node: Node, defaults: inout Config, existing: Int = 0) -> [HostConfig] {
        guard let items = list(node, key: "hosts") else { return [] }
        if let problem = ConfigLimits.hostsProblem(items.count, existing: existing) {
            report(node, key: "hosts", problem)
            return []
        }
        var hosts: [HostConfig] = []
        hosts.reserveCapacity(items.count)
        var firstSeen: [HostIdentity: (index: Int, line: Int)] = [:]
        for (index, item) in items.enumerated() {
            guard let host = host(item, index: index, defaults: &defaults) else { continue }
            let identity = HostIdentity(
                host: host.host.lowercased(), port: host.port, serverName: host.serverName.lowercased(),
                connect: host.connectAddress?.lowercased() ?? "")
            if let first = firstSeen[identity] {
                report(
                    item, key: "hosts[\(index)]",
                    "duplicate host \(host.displayName) (sni \(host.serverName)\(host.connectAddress.map { ", connect \($0)" } ?? "")), "
                        + "first at hosts[\(first.index)] line \(first.line)")
                continue
            }
            firstSeen[identity] = (index, line(of: item))
            hosts.append(host)
        }
        return hosts
    }

    mutating func hostName(_ node: Node, key: @autoclosure () -> String) -> String? {
        guard let name = string(node, key: key()) else { return nil }
        if let problem = HostNameCheck.problem(name) {
            report(node, key: key(), problem)
            return nil
        }
        return name
    }

    /// One entry, its keys read in `HostKey.all`'s order.
    private mutating func host(_ node: Node, index: Int, defaults: inout Config) -> HostConfig? {
        guard let pairs = mapping(node, key: "hosts[\(index)]") else { return nil }
        var values: [String: Node] = [:]
        for pair in pairs {
            if HostKey.names.contains(pair.key) {
                values[pair.key] = pair.value
            } else {
                report(pair.keyNode, key: "hosts[\(index)].\(pair.key)", "unknown key" + DidYouMean.hint(pair.key, among: HostKey.names))
            }
        }
        var entry = HostConfig(host: "", trust: defaults.trust, line: line(of: node))
        entry.addresses = defaults.addresses
        entry.keyTypes = defaults.keyTypes
        entry.checksRevocation = defaults.checksRevocation
        var draft = HostEntryDraft(index: index, entry: entry)
        var valid = true
        for key in HostKey.all {
            guard let value = values[key.name] else {
                if let missing = key.missing {
                    report(node, key: draft.key(key.name), missing)
                    return nil
                }
                continue
            }
            if !key.read(&self, value, &draft, &defaults) {
                // Without a required key the entry's identity is not known.
                if key.missing != nil { return nil }
                valid = false
            }
        }
        // A host whose own values are broken is left out of duplicate
        // detection: its identity is not known.
        return valid ? draft.entry : nil
    }

    /// Where each dialogue is usually spoken, for the message above.
    static func startTLSPortHint(_ dialogue: StartTLSProtocol) -> String {
        switch dialogue {
        case .smtp: return "port: 25 or 587"
        case .imap: return "port: 143"
        case .xmpp: return "port: 5222 or 5269"
        case .postgres: return "port: 5432"
        }
    }
}
