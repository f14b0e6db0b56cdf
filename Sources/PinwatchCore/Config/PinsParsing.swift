import Yams

extension ConfigDocumentParser {
    /// `pinsets:`: name → `{ca: [...], leaf: [...], provider: NAME}`.
    mutating func pinsets(_ node: Node, into config: inout Config) {
        guard !isNull(node), let pairs = mapping(node, key: "pinsets") else { return }
        for pair in pairs {
            // Kept even when some pins are bad, so hosts using it do not
            // also report an unknown pinset.
            var providerNode: Node?
            let pinsNode = takingOwnership(of: pair.value, pinset: pair.key, into: &config)
            config.pinsets[pair.key] = pinSet(
                pinsNode, key: "pinsets.\(pair.key)", owner: "pinset \(pair.key)", provider: &providerNode)
            if let providerNode, let name = provider(providerNode, key: "pinsets.\(pair.key).provider", into: &config) {
                config.pinsetProviders[pair.key] = name
            }
        }
    }

    /// `provider: NAME`, remembered with its place: whether the catalogue
    /// knows it is checked once the catalogue is loaded.
    mutating func provider(_ node: Node, key: String, into config: inout Config) -> String? {
        guard let name = string(node, key: key) else { return nil }
        guard !name.isEmpty else {
            report(node, key: key, "give the name of a provider of the catalogue (pinwatch catalogue lists them)")
            return nil
        }
        config.providerReferences.append(ProviderReference(name: name, file: file, line: line(of: node), key: key))
        return name
    }

    /// `{ca: [...], leaf: [...], auto: [...]}` with `owner` ("host x" /
    /// "pinset y") named in pin messages.
    mutating func pinSet(_ node: Node, key: String, owner: String) -> PinSet {
        var unused: Node?
        return pinSet(node, key: key, owner: owner, provider: &unused, acceptsProvider: false)
    }

    /// A pin set that may name its `provider:` (a `pinsets:` entry; a
    /// host's own `pins:` may not: the host has its own key).
    mutating func pinSet(
        _ node: Node, key: String, owner: String, provider: inout Node?, acceptsProvider: Bool = true
    ) -> PinSet {
        var set = PinSet()
        guard !isNull(node), let pairs = mapping(node, key: key) else { return set }
        for pair in pairs {
            if pair.key == "provider", acceptsProvider {
                provider = pair.value
                continue
            }
            if pair.key == "auto" {
                set.auto += pinList(pair.value, key: "\(key).auto", owner: owner)
                continue
            }
            guard let tier = PinTier(rawValue: pair.key) else {
                report(
                    pair.keyNode, key: "\(key).\(pair.key)",
                    (acceptsProvider
                        ? "unknown key (expected ca, leaf, auto, provider, labels or runbook)" : "unknown key (expected ca, leaf or auto)")
                        + DidYouMean.hint(
                            pair.key,
                            among: acceptsProvider ? ["ca", "leaf", "auto", "provider", "labels", "runbook"] : ["ca", "leaf", "auto"]))
                continue
            }
            let pins = pinList(pair.value, key: "\(key).\(tier.rawValue)", owner: owner)
            switch tier {
            case .ca: set.ca += pins
            case .leaf: set.leaf += pins
            }
        }
        return set.merged(with: PinSet())
    }

    private mutating func pinList(_ node: Node, key: String, owner: String) -> [Pin] {
        guard let items = list(node, key: key) else { return [] }
        var pins: [Pin] = []
        for (index, item) in items.enumerated() {
            let itemKey = "\(key)[\(index)]"
            guard let text = string(item, key: itemKey) else { continue }
            if text.hasPrefix("file:") {
                pins += filePins(text, node: item, key: itemKey, owner: owner)
                continue
            }
            do {
                pins.append(try Pin.parse(text))
            } catch {
                report(item, key: itemKey, "\(owner): pin \(EchoedInput.quoted(text)): \(error)")
            }
        }
        return pins
    }

    /// Every certificate of the file, pinned as `cert:` (DESIGN §3).
    private mutating func filePins(_ text: String, node: Node, key: String, owner: String) -> [Pin] {
        let path = resolve(String(text.dropFirst("file:".count)).trimmingWhitespace())
        let digests: [[UInt8]]
        do {
            digests = try certificateDigests(path)
        } catch {
            report(node, key: key, "\(owner): pin \(EchoedInput.quoted(text)): \(error)")
            return []
        }
        guard !digests.isEmpty else {
            report(node, key: key, "\(owner): pin \(EchoedInput.quoted(text)): no certificate in \(path)")
            return []
        }
        var pins: [Pin] = []
        for digest in digests {
            guard digest.count == 32 else {
                report(node, key: key, "\(owner): pin \(EchoedInput.quoted(text)): digest is \(digest.count) bytes, expected 32")
                continue
            }
            pins.append(Pin(kind: .cert, digest: digest, text: "cert:" + PinText.hex(digest)))
        }
        return pins
    }
}
