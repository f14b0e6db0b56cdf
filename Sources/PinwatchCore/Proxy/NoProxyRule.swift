/// `no_proxy` as curl reads it.
///
/// Comma (or space) separated entries; `*` alone exempts every host; a
/// name matches itself and its subdomains, with or without a leading dot;
/// an IP literal only matches itself; ports in entries are ignored; case
/// does not matter; and, unlike some tools, loopback is not exempt unless
/// listed, because a pinned client would not exempt it either.
package struct NoProxyRule: Sendable {
    private let matchesEverything: Bool
    private let entries: [String]

    package init(_ list: String) {
        let raw = list.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }).map(String.init)
        matchesEverything = raw.contains("*")
        entries = raw.compactMap(Self.normalizedEntry)
    }

    package func excludes(host: String) -> Bool {
        if matchesEverything { return true }
        let name = Self.normalizedHost(host)
        guard !name.isEmpty else { return false }
        let isIP = Self.isIPLiteral(name)
        return entries.contains { entry in
            if name == entry { return true }
            return !isIP && name.hasSuffix("." + entry)
        }
    }

    private static func normalizedHost(_ host: String) -> String {
        var name = host.lowercased()
        if name.hasPrefix("[") && name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        while name.hasSuffix(".") { name.removeLast() }
        return name
    }

    private static func normalizedEntry(_ entry: String) -> String? {
        var text = Substring(entry.lowercased())
        if text.hasPrefix("[") {
            // "[::1]:8080" → "::1"
            guard let close = text.firstIndex(of: "]") else { return nil }
            text = text[text.index(after: text.startIndex)..<close]
        } else if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
            // One colon is a port; more is a bare IPv6 literal.
            text = text[..<colon]
        }
        while text.hasPrefix(".") { text = text.dropFirst() }
        while text.hasSuffix(".") { text = text.dropLast() }
        return text.isEmpty ? nil : String(text)
    }

    private static func isIPLiteral(_ name: String) -> Bool {
        if name.contains(":") { return true }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4
            && parts.allSatisfy { part in
                !part.isEmpty && part.count <= 3 && part.allSatisfy { $0.isASCII && $0.isNumber }
            }
    }
}
