/// `addresses:`: which of a name's addresses a host's probes dial.
public enum AddressSelection: String, Hashable, Sendable, CaseIterable {
    /// The first address that answers, as a default client does.
    case first
    /// Every A/AAAA address the name resolves to, each probed on its own.
    case all
}

/// One of the probes a host is made of: with `addresses: all` and
/// `key_types:`, a host is every resolved address times every listed key
/// type, and its verdict is folded from theirs (`VariantFold`).
public struct ProbeVariant: Hashable, Sendable {
    /// The address dialled; nil when the host's name is resolved as usual.
    public var address: String?
    /// The signature family offered; nil for the full offer.
    public var keyType: KeyTypeOffer?

    public init(address: String? = nil, keyType: KeyTypeOffer? = nil) {
        self.address = address
        self.keyType = keyType
    }

    /// `127.0.0.2`, `rsa`, `127.0.0.2 rsa`: how views name the probe.
    public var label: String {
        [address, keyType?.rawValue].compactMap { $0 }.joined(separator: " ")
    }
}

/// How many addresses of one name are probed: a name with hundreds of
/// records would otherwise multiply a cycle by hundreds.
public enum AddressExpansion {
    public static let maximumAddresses = 64

    /// The addresses to probe, in a stable order (DNS rotates its answers
    /// between lookups), without repeats, at most `maximumAddresses`; and
    /// the ones left out, named. Past the cap the addresses are probed in
    /// windows of `maximumAddresses`, `window` choosing which (it wraps),
    /// so that a cycle number as `window` probes every address within
    /// `windowCount` cycles instead of never looking past the first ones.
    public static func select(_ resolved: [String], window: Int = 0) -> (addresses: [String], notProbed: [String]) {
        let distinct = ordered(resolved)
        guard distinct.count > maximumAddresses else { return (distinct, []) }
        let windows = windowCount(distinct.count)
        let start = ((window % windows + windows) % windows) * maximumAddresses
        // The last window is filled from the start of the list: every
        // window probes the full number.
        let chosen = Set((start..<start + maximumAddresses).map { distinct[$0 % distinct.count] })
        return (distinct.filter { chosen.contains($0) }, distinct.filter { !chosen.contains($0) })
    }

    /// How many cycles it takes to probe `count` addresses once each.
    public static func windowCount(_ count: Int) -> Int {
        max(1, (count + maximumAddresses - 1) / maximumAddresses)
    }

    static func ordered(_ resolved: [String]) -> [String] {
        Array(Set(resolved)).sorted { lhs, rhs in
            // IPv4 before IPv6, then in text order.
            let lhsIsV6 = lhs.contains(":")
            let rhsIsV6 = rhs.contains(":")
            return lhsIsV6 == rhsIsV6 ? lhs < rhs : !lhsIsV6
        }
    }
}

extension HostConfig {
    /// The probes this host is made of, given the addresses its name
    /// resolved to (nil when not resolved: `addresses: first`, `connect:`,
    /// or a lookup that failed, which the probe of the name then reports).
    public func variants(resolvedAddresses: [String]?) -> [ProbeVariant] {
        let addresses: [String?] = resolvedAddresses.map { $0.isEmpty ? [nil] : $0.map { Optional($0) } } ?? [nil]
        let offers: [KeyTypeOffer?] = keyTypes.isEmpty ? [nil] : keyTypes.map { Optional($0) }
        return addresses.flatMap { address in offers.map { ProbeVariant(address: address, keyType: $0) } }
    }

    /// Whether this host's name is resolved up front so that every address
    /// gets its own probe: `connect:` already names the one address.
    public var probesEveryAddress: Bool { addresses == .all && connectAddress == nil }
}
