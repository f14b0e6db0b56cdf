import PinwatchProbe

/// The names a follower watches: each exact, or (written `*.example.com`
/// or `.example.com`) the name and every name below it. Compared without
/// case, as DNS names are.
package struct CTWatchedNames: Sendable, Equatable {
    private var exact: Set<String> = []
    /// The parent of each exact name: a wildcard certificate one label
    /// above a watched name covers it.
    private var exactParents: Set<String> = []
    private var domains: [String] = []
    /// Bytes every certificate for a watched name holds (lowercase ASCII):
    /// a certificate that holds none of them is not parsed.
    private var needles: [[UInt8]] = []

    /// Past this many needles, searching costs more than parsing.
    private static let maximumNeedles = 64

    package init(_ patterns: [String]) {
        for pattern in patterns {
            let lowered = pattern.lowercased()
            if lowered.hasPrefix("*.") {
                domains.append(String(lowered.dropFirst(2)))
            } else if lowered.hasPrefix(".") {
                domains.append(String(lowered.dropFirst()))
            } else {
                exact.insert(lowered)
                if let dot = lowered.firstIndex(of: ".") { exactParents.insert(String(lowered[lowered.index(after: dot)...])) }
            }
        }
        // A DNS name in a certificate is ASCII (IDNs as punycode), so a
        // certificate for a watched name holds the name's parent (or the
        // watched domain) as bytes, whatever it says about the first label.
        var texts = Set(domains)
        for name in exact { texts.insert(name.firstIndex(of: ".").map { String(name[name.index(after: $0)...]) } ?? name) }
        if texts.count <= Self.maximumNeedles, !texts.contains(where: \.isEmpty) { needles = texts.sorted().map { Array($0.utf8) } }
    }

    package func matches(_ name: String) -> Bool {
        let lowered = name.lowercased()
        if lowered.hasPrefix("*.") {
            // A wildcard covers one label below its base, not the base.
            let base = String(lowered.dropFirst(2))
            return exactParents.contains(base) || domains.contains { base == $0 || base.hasSuffix("." + $0) }
        }
        if exact.contains(lowered) { return true }
        return domains.contains { lowered == $0 || lowered.hasSuffix("." + $0) }
    }

    /// True when any DNS name of the entry's certificate (or precertificate)
    /// is watched; an entry whose certificate does not parse matches nothing.
    package func matches(_ entry: CTLogEntry) -> Bool {
        guard mayMatch(entry.certificateDER) else { return false }
        return CTEntryNames.dnsNames(of: entry).contains(where: matches)
    }

    /// False only when the certificate's bytes hold no needle, compared
    /// without ASCII case.
    func mayMatch(_ der: [UInt8]) -> Bool {
        guard !needles.isEmpty else { return !exact.isEmpty || !domains.isEmpty }
        let lowered = der.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        return needles.contains { needle in
            guard needle.count <= lowered.count else { return false }
            for start in 0...(lowered.count - needle.count) where lowered[start] == needle[0] {
                if lowered[start..<(start + needle.count)].elementsEqual(needle) { return true }
            }
            return false
        }
    }
}

/// The names a logged certificate is for: its subjectAltName entries.
package enum CTEntryNames {
    package static func dnsNames(of entry: CTLogEntry) -> [String] {
        guard let certificate = try? X509Certificate(der: entry.certificateDER) else { return [] }
        return certificate.subjectAltNames
    }
}
