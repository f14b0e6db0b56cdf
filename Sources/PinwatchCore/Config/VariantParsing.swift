import Yams

/// `addresses:` and `key_types:`, at the top (the default every host
/// inherits) and on a host.
extension ConfigDocumentParser {
    mutating func addressSelection(_ node: Node, key: @autoclosure () -> String) -> AddressSelection? {
        guard let text = string(node, key: key()) else { return nil }
        guard let selection = AddressSelection(rawValue: text.lowercased()) else {
            report(node, key: key(), "expected first or all, found \(EchoedInput.quoted(text))")
            return nil
        }
        return selection
    }

    /// A list of distinct key types; an empty list is the full offer.
    mutating func keyTypes(_ node: Node, key: @autoclosure () -> String) -> [KeyTypeOffer]? {
        guard let items = list(node, key: key()) else { return nil }
        var offers: [KeyTypeOffer] = []
        var valid = true
        for (index, item) in items.enumerated() {
            guard let text = string(item, key: "\(key())[\(index)]") else {
                valid = false
                continue
            }
            guard let offer = KeyTypeOffer(rawValue: text.lowercased()) else {
                let names = KeyTypeOffer.allCases.map(\.rawValue)
                report(
                    item, key: "\(key())[\(index)]",
                    "expected one of \(names.joined(separator: ", ")), found \(EchoedInput.quoted(text))"
                        + DidYouMean.hint(text.lowercased(), among: names))
                valid = false
                continue
            }
            if offers.contains(offer) {
                report(item, key: "\(key())[\(index)]", "\(offer.rawValue) is listed twice")
                valid = false
                continue
            }
            offers.append(offer)
        }
        return valid ? offers : nil
    }
}
