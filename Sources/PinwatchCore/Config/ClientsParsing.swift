import Foundation
import Yams

extension ConfigDocumentParser {
    static let clientKeys = Set(["name", "host", "optional", "public_key", "skip", "trust_store", "ct_required"])
        .union(ClientFormat.allCases.map(\.rawValue))

    /// `clients:`: each `{name, <format>: path, optional, host}`; a
    /// `dynamic_list` is `{url | file, public_key}`.
    mutating func clientSources(_ node: Node) -> [ClientSource] {
        guard !isNull(node), let items = list(node, key: "clients") else { return [] }
        var sources: [ClientSource] = []
        var firstLine: [String: Int] = [:]
        for (index, item) in items.enumerated() {
            let key = "clients[\(index)]"
            guard let source = clientSource(item, key: key) else { continue }
            if let first = firstLine[source.name] {
                report(item, key: "\(key).name", "duplicate client \(EchoedInput.quoted(source.name)), first at line \(first)")
                continue
            }
            firstLine[source.name] = source.line
            sources.append(source)
        }
        return sources
    }

    private mutating func clientSource(_ node: Node, key: String) -> ClientSource? {
        guard let pairs = mapping(node, key: key) else { return nil }
        var values: [String: Node] = [:]
        for pair in pairs {
            if Self.clientKeys.contains(pair.key) {
                values[pair.key] = pair.value
            } else {
                report(pair.keyNode, key: "\(key).\(pair.key)", "unknown key" + DidYouMean.hint(pair.key, among: Self.clientKeys))
            }
        }
        let formats = ClientFormat.allCases.filter { values[$0.rawValue] != nil }
        let formatNames = ClientFormat.allCases.map(\.rawValue).joined(separator: ", ")
        guard let format = formats.first, formats.count == 1 else {
            let found = formats.isEmpty ? "none" : formats.map(\.rawValue).joined(separator: " and ")
            report(node, key: key, "give exactly one source (\(formatNames)); found \(found)")
            return nil
        }
        guard let nameNode = values["name"] else {
            report(node, key: "\(key).name", "missing (a client release, e.g. \"android 5.2\")")
            return nil
        }
        guard let name = string(nameNode, key: "\(key).name") else { return nil }
        var source = ClientSource(name: name, format: format, location: .file(""), line: line(of: node))
        if let optionalNode = values["optional"] {
            guard let value = boolean(optionalNode, key: "\(key).optional") else { return nil }
            source.optional = value
        }
        if let ctNode = values["ct_required"] {
            guard let value = boolean(ctNode, key: "\(key).ct_required") else { return nil }
            source.ctRequired = value
        }
        if let hostNode = values["host"] {
            guard let host = string(hostNode, key: "\(key).host") else { return nil }
            if let problem = HostNameCheck.problem(host) {
                report(hostNode, key: "\(key).host", problem)
                return nil
            }
            source.host = host.lowercased()
        }
        if let skipNode = values["skip"] {
            guard let names = skipList(skipNode, key: "\(key).skip") else { return nil }
            source.skip = names
        }
        if let storeNode = values["trust_store"] {
            guard let path = string(storeNode, key: "\(key).trust_store") else { return nil }
            source.trustStore = resolve(path)
        }
        let sourceNode = values[format.rawValue]!
        let sourceKey = "\(key).\(format.rawValue)"
        if format == .dynamicList {
            guard let list = dynamicList(sourceNode, key: sourceKey, publicKey: values["public_key"]) else { return nil }
            source.location = list.location
            source.publicKey = list.publicKey
            source.listSignature = list.signature
            source.listChallenge = list.challenge
        } else {
            if values["public_key"] != nil {
                report(values["public_key"]!, key: "\(key).public_key", "only a dynamic_list has a public_key")
                return nil
            }
            guard let path = string(sourceNode, key: sourceKey) else { return nil }
            source.location = .file(resolve(path))
        }
        return source
    }

    /// `{url: https://… | file: path, public_key: BASE64}`; a saved
    /// challenge-signed list adds `signature:` and `challenge:`.
    private mutating func dynamicList(_ node: Node, key: String, publicKey: Node?) -> (
        location: ClientSource.Location, publicKey: String, signature: String?, challenge: String?
    )? {
        guard let pairs = mapping(node, key: key) else { return nil }
        var location: ClientSource.Location?
        var keyText: String?
        var signature: String?
        var challenge: String?
        if let publicKey { keyText = string(publicKey, key: "\(key).public_key") }
        for pair in pairs {
            switch pair.key {
            case "url":
                guard let url = string(pair.value, key: "\(key).url") else { return nil }
                guard url.lowercased().hasPrefix("https://") || url.lowercased().hasPrefix("http://") else {
                    report(pair.value, key: "\(key).url", "\(EchoedInput.quoted(url)) is not an http(s) URL")
                    return nil
                }
                guard let parts = URLComponents(string: url), parts.host?.isEmpty == false else {
                    report(pair.value, key: "\(key).url", "\(EchoedInput.quoted(url)) is not a URL with a host")
                    return nil
                }
                guard parts.user == nil, parts.password == nil else {
                    // Messages and JSON show the URL; a signed list is public anyway.
                    report(pair.value, key: "\(key).url", "credentials in the URL are not supported (the list is signed, not secret)")
                    return nil
                }
                location = .url(url)
            case "file":
                guard let path = string(pair.value, key: "\(key).file") else { return nil }
                location = .file(resolve(path))
            case "public_key":
                keyText = string(pair.value, key: "\(key).public_key")
            case "signature":
                guard let text = string(pair.value, key: "\(key).signature") else { return nil }
                guard PinText.decodeBase64(text)?.isEmpty == false else {
                    report(pair.value, key: "\(key).signature", "expected the X-Cert-Pinning-Signature header's base64")
                    return nil
                }
                signature = text
            case "challenge":
                guard let text = string(pair.value, key: "\(key).challenge") else { return nil }
                guard !text.isEmpty, text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
                    report(pair.value, key: "\(key).challenge", "expected the X-Cert-Pinning-Challenge header's value")
                    return nil
                }
                challenge = text
            default:
                report(
                    pair.keyNode, key: "\(key).\(pair.key)",
                    "unknown key (expected url or file, public_key, and for a saved challenge-signed list signature and challenge)")
                return nil
            }
        }
        guard let location else {
            report(node, key: key, "give url: or file: for the signed list")
            return nil
        }
        if case .url = location, signature != nil || challenge != nil {
            report(node, key: key, "signature: and challenge: are for a saved list (file:); a URL is fetched with a fresh challenge")
            return nil
        }
        guard (signature == nil) == (challenge == nil) else {
            report(node, key: key, "a saved challenge-signed list needs both signature: and challenge:")
            return nil
        }
        guard let keyText else {
            report(node, key: "\(key).public_key", "missing: the app's list-signing key (uncompressed P-256 point, base64)")
            return nil
        }
        guard let bytes = PinText.decodeBase64(keyText), bytes.count == 65, bytes.first == 0x04 else {
            report(node, key: "\(key).public_key", "expected an uncompressed P-256 point in base64 (65 bytes starting 0x04)")
            return nil
        }
        return (location, keyText, signature, challenge)
    }

    /// `skip: [name, …]`: host names, as the source writes them.
    private mutating func skipList(_ node: Node, key: String) -> Set<String>? {
        guard let items = list(node, key: key) else { return nil }
        var names = Set<String>()
        for (index, item) in items.enumerated() {
            guard let name = string(item, key: "\(key)[\(index)]") else { return nil }
            if let problem = HostNameCheck.problem(name) {
                report(item, key: "\(key)[\(index)]", problem)
                return nil
            }
            names.insert(name.lowercased())
        }
        return names
    }

    mutating func boolean(_ node: Node, key: String) -> Bool? {
        guard let text = string(node, key: key) else { return nil }
        switch text.lowercased() {
        case "true", "yes", "on": return true
        case "false", "no", "off": return false
        default:
            report(node, key: key, "expected true or false, found \(EchoedInput.quoted(text))")
            return nil
        }
    }

    /// Reads each source; a failure is a configuration problem on the
    /// entry's line, or, for an `optional: true` source, a warning.
    mutating func loadClients(_ sources: [ClientSource], reader: ClientSourceReader?, into config: inout Config) {
        guard let reader else { return }
        for var source in sources {
            source.proxy = config.proxy
            source.trust = config.trust
            source.timeout = config.timeout
            do throws(ClientSourceError) {
                var pins = try reader(source)
                if let host = source.host {
                    // curl and HPKP strings name no host: the entry does.
                    pins.rules = pins.rules.map { rule in
                        var rule = rule
                        if rule.domain.isEmpty { rule.domain = host }
                        return rule
                    }
                }
                if let unnamed = pins.rules.first(where: { $0.domain.isEmpty }) {
                    throw ClientSourceError(file: unnamed.origin, message: "names no host: add host: to the client entry")
                }
                var policy = ClientPolicy(name: source.name, pins: pins, skip: source.skip)
                policy.ctRequired = source.ctRequired
                if let path = source.trustStore, let trustStoreReader {
                    let anchors: [CertificateFacts]
                    do { anchors = try trustStoreReader(path) } catch {
                        throw ClientSourceError(file: path, message: "trust_store: \(error)")
                    }
                    guard !anchors.isEmpty else { throw ClientSourceError(file: path, message: "trust_store: holds no certificate") }
                    policy.trustStore = TrustStore(name: "the store of \(source.name)", anchors: anchors)
                }
                config.clients.append(policy)
            } catch {
                let message = "client \(EchoedInput.quoted(source.name)): \(error)"
                if source.optional {
                    config.clientWarnings.append("\(file):\(source.line): \(message) (optional: left out)")
                } else {
                    report(line: source.line, key: "clients", message)
                }
            }
        }
        config.hosts += ClientHosts.missing(from: config.hosts, clients: config.clients, trust: config.trust)
    }
}

/// The hosts clients connect to that the configuration does not list:
/// they join the poll, once each however many clients name them.
enum ClientHosts {
    static func missing(from hosts: [HostConfig], clients: [ClientPolicy], trust: TrustSource) -> [HostConfig] {
        var known = Set(hosts.map { $0.serverName.lowercased() })
        var added: [HostConfig] = []
        for client in clients {
            for name in client.concreteHosts where HostNameCheck.problem(name) == nil && known.insert(name).inserted {
                added.append(HostConfig(host: name, trust: trust))
            }
        }
        return added
    }
}
