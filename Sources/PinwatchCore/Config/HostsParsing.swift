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
            guard let host = host(item, key: "hosts[\(index)]", defaults: &defaults) else { continue }
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

    private mutating func hostName(_ node: Node, key: @autoclosure () -> String) -> String? {
        guard let name = string(node, key: key()) else { return nil }
        if let problem = HostNameCheck.problem(name) {
            report(node, key: key(), problem)
            return nil
        }
        return name
    }

    static let hostKeys = [
        "host", "port", "sni", "connect", "pinset", "pins", "trust", "provider",
        "labels", "runbook",
        "addresses", "key_types",
        "silence",
        "starttls",
        "revocation",
    ]

    private mutating func host(_ node: Node, key: @autoclosure () -> String, defaults: inout Config) -> HostConfig? {
        guard let pairs = mapping(node, key: key()) else { return nil }
        var hostNode: Node?
        var portNode: Node?
        var sniNode: Node?
        var connectNode: Node?
        var pinsetNode: Node?
        var pinsNode: Node?
        var trustNode: Node?
        var providerNode: Node?
        var labelsNode: Node?
        var runbookNode: Node?
        var addressesNode: Node?
        var keyTypesNode: Node?
        var silenceNode: Node?
        var starttlsNode: Node?
        var revocationNode: Node?
        for pair in pairs {
            switch pair.key {
            case "host": hostNode = pair.value
            case "port": portNode = pair.value
            case "sni": sniNode = pair.value
            case "connect": connectNode = pair.value
            case "pinset": pinsetNode = pair.value
            case "pins": pinsNode = pair.value
            case "trust": trustNode = pair.value
            case "provider": providerNode = pair.value
            case "labels": labelsNode = pair.value
            case "runbook": runbookNode = pair.value
            case "addresses": addressesNode = pair.value
            case "key_types": keyTypesNode = pair.value
            case "silence": silenceNode = pair.value
            case "starttls": starttlsNode = pair.value
            case "revocation": revocationNode = pair.value
            default: report(pair.keyNode, key: "\(key()).\(pair.key)", "unknown key" + DidYouMean.hint(pair.key, among: Self.hostKeys))
            }
        }
        guard let hostNode else {
            report(node, key: "\(key()).host", "missing (every entry needs a host)")
            return nil
        }
        guard let written = string(hostNode, key: "\(key()).host") else { return nil }
        if let url = HostURLHint.problem(written) {
            report(hostNode, key: "\(key()).host", url)
            return nil
        }
        // `host: a.test:8443` and `[2001:db8::1]:8443` mean what they say,
        // read as the command line and `/probe` read them (a file_sd
        // target is one of these too).
        let endpoint: HostPort
        do {
            endpoint = try HostPort(parsing: written)
        } catch {
            report(hostNode, key: "\(key()).host", error.description)
            return nil
        }
        let name = endpoint.host
        let writtenPort = endpoint.portWasWritten ? endpoint.port : nil
        var entry = HostConfig(host: name, trust: defaults.trust, line: line(of: node))
        entry.addresses = defaults.addresses
        entry.keyTypes = defaults.keyTypes
        entry.checksRevocation = defaults.checksRevocation
        var valid = true
        if let writtenPort { entry.port = writtenPort }
        if let node = portNode {
            if let port = integer(node, key: "\(key()).port", in: 1...65_535) {
                if let writtenPort, writtenPort != port {
                    report(node, key: "\(key()).port", "\(port) contradicts the port in host: \(EchoedInput.quoted(written))")
                    valid = false
                }
                entry.port = port
            } else {
                valid = false
            }
        }
        if let node = sniNode {
            if let sni = hostName(node, key: "\(key()).sni") { entry.serverName = sni } else { valid = false }
        }
        if let node = connectNode {
            if let address = hostName(node, key: "\(key()).connect") { entry.connectAddress = address } else { valid = false }
        }
        if let node = addressesNode {
            if let selection = addressSelection(node, key: "\(key()).addresses") {
                entry.addresses = selection
                if selection == .all, entry.connectAddress != nil {
                    report(node, key: "\(key()).addresses", "all cannot apply to a host with connect: (it names the one address to dial)")
                    valid = false
                }
            } else {
                valid = false
            }
        }
        if let node = keyTypesNode {
            if let offers = keyTypes(node, key: "\(key()).key_types") { entry.keyTypes = offers } else { valid = false }
        }
        if let node = revocationNode {
            if let value = boolean(node, key: "\(key()).revocation") { entry.checksRevocation = value } else { valid = false }
        }
        if let node = trustNode {
            if let trust = trust(node, key: "\(key()).trust") { entry.trust = trust } else { valid = false }
        }
        if let node = starttlsNode {
            if let written = string(node, key: "\(key()).starttls") {
                if let dialogue = StartTLSProtocol(rawValue: written), let service = StartTLSProtocol.implicitTLSPorts[entry.port] {
                    // Said before any probe: the probe could only time out.
                    report(
                        node, key: "\(key()).starttls",
                        "port \(entry.port) speaks TLS at once (\(service)), with no \(dialogue.displayName) greeting to answer: "
                            + "remove starttls:, or name the STARTTLS port (\(Self.startTLSPortHint(dialogue)))")
                    valid = false
                } else if let dialogue = StartTLSProtocol(rawValue: written) {
                    entry.starttls = dialogue
                } else {
                    let names = StartTLSProtocol.allCases.map(\.rawValue)
                    report(
                        node, key: "\(key()).starttls",
                        "unknown protocol \(EchoedInput.quoted(written)) (one of: \(names.joined(separator: ", ")))"
                            + DidYouMean.hint(written, among: names))
                    valid = false
                }
            } else {
                valid = false
            }
        }
        var owner: String { "host \(name)" }
        if let node = pinsNode {
            entry.pins = pinSet(node, key: "\(key()).pins", owner: owner)
        }
        if let node = pinsetNode, let setName = string(node, key: "\(key()).pinset") {
            if let set = defaults.pinsets[setName] {
                entry.pinsetName = setName
                entry.pins = entry.pins.merged(with: set)
                entry.provider = defaults.pinsetProviders[setName]
                entry.labels = defaults.pinsetLabels[setName] ?? [:]
                entry.runbook = defaults.pinsetRunbooks[setName]
            } else {
                report(
                    node, key: "\(key()).pinset",
                    "\(owner): unknown pinset \(EchoedInput.quoted(setName))" + DidYouMean.hint(setName, among: defaults.pinsets.keys))
            }
        }
        // The host's own provider wins over its pin set's.
        if let node = providerNode, let name = provider(node, key: "\(key()).provider", into: &defaults) {
            entry.provider = name
        }
        // The host's own labels win key by key over its pin set's.
        if let node = labelsNode {
            if let own = ownerLabels(node, key: "\(key()).labels") {
                entry.labels.merge(own) { _, own in own }
            } else {
                valid = false
            }
        }
        if let node = runbookNode {
            if let link = runbook(node, key: "\(key()).runbook") { entry.runbook = link } else { valid = false }
        }
        if let node = silenceNode {
            if let silence = silence(node, key: "\(key()).silence") { entry.silence = silence } else { valid = false }
        }
        // A host whose own values are broken is left out of duplicate
        // detection: its identity is not known.
        return valid ? entry : nil
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
