import PinwatchProbe

/// The names a follower watches: each exact, or (written `*.example.com`
/// or `.example.com`) the name and every name below it. Compared without
/// case, as DNS names are.
package struct CTWatchedNames: Sendable, Equatable {
    private var exact: Set<String> = []
    private var domains: [String] = []

    package init(_ patterns: [String]) {
        for pattern in patterns {
            let lowered = pattern.lowercased()
            if lowered.hasPrefix("*.") {
                domains.append(String(lowered.dropFirst(2)))
            } else if lowered.hasPrefix(".") {
                domains.append(String(lowered.dropFirst()))
            } else {
                exact.insert(lowered)
            }
        }
    }

    package func matches(_ name: String) -> Bool {
        var lowered = name.lowercased()
        // A wildcard certificate covers the names below its base.
        if lowered.hasPrefix("*.") { lowered.removeFirst(2) }
        if exact.contains(lowered) { return true }
        return domains.contains { lowered == $0 || lowered.hasSuffix("." + $0) }
    }

    /// True when any DNS name of the entry's certificate (or precertificate)
    /// is watched; an entry whose certificate does not parse matches nothing.
    package func matches(_ entry: CTLogEntry) -> Bool {
        CTEntryNames.dnsNames(of: entry).contains(where: matches)
    }
}

/// The names a logged certificate is for: its subjectAltName entries.
package enum CTEntryNames {
    package static func dnsNames(of entry: CTLogEntry) -> [String] {
        guard let certificate = try? X509Certificate(der: entry.certificateDER) else { return [] }
        return certificate.subjectAltNames
    }
}
