import Yams

extension ConfigDocumentParser {
    /// `pinsets:`: name → `{ca: [...], leaf: [...]}`.
    mutating func pinsets(_ node: Node) -> [String: PinSet] {
        guard !isNull(node), let pairs = mapping(node, key: "pinsets") else { return [:] }
        var sets: [String: PinSet] = [:]
        for pair in pairs {
            // Kept even when some pins are bad, so hosts using it do not
            // also report an unknown pinset.
            sets[pair.key] = pinSet(pair.value, key: "pinsets.\(pair.key)", owner: "pinset \(pair.key)")
        }
        return sets
    }

    /// `{ca: [...], leaf: [...], auto: [...]}` with `owner` ("host x" /
    /// "pinset y") named in pin messages.
    mutating func pinSet(_ node: Node, key: String, owner: String) -> PinSet {
        var set = PinSet()
        guard !isNull(node), let pairs = mapping(node, key: key) else { return set }
        for pair in pairs {
            if pair.key == "auto" {
                set.auto += pinList(pair.value, key: "\(key).auto", owner: owner)
                continue
            }
            guard let tier = PinTier(rawValue: pair.key) else {
                report(pair.keyNode, key: "\(key).\(pair.key)", "unknown key (expected ca, leaf or auto)")
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
