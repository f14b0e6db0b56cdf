import Foundation

/// `probe_targets:`: which targets `serve`'s `/probe` may dial. Anyone who
/// reaches the exporter can ask, so the default probes only configured
/// hosts; `any` is blackbox_exporter's behaviour, and a list of networks
/// allows the targets whose resolved address falls inside one of them.
public enum ProbeTargetPolicy: Hashable, Sendable {
    case configured
    case any
    case networks([IPNetwork])

    /// The setting as the configuration writes it, for messages.
    public var description: String {
        switch self {
        case .configured: return "configured"
        case .any: return "any"
        case .networks(let networks): return "[" + networks.map(\.description).joined(separator: ", ") + "]"
        }
    }
}

/// An IPv4 or IPv6 network in CIDR form (`10.0.0.0/8`, `2001:db8::/32`);
/// a bare address is a network of one.
public struct IPNetwork: Hashable, Sendable, CustomStringConvertible {
    /// 4 or 16 bytes, the host bits cleared.
    public let bytes: [UInt8]
    public let prefixLength: Int

    public init?(parsing text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPNetwork.addressBytes(String(parts[0])) else { return nil }
        let bits = address.count * 8
        var length = bits
        if parts.count == 2 {
            guard let given = Int(parts[1]), parts[1].allSatisfy(\.isASCII), (0...bits).contains(given) else { return nil }
            length = given
        }
        prefixLength = length
        bytes = address.enumerated().map { index, byte in
            let kept = max(0, min(8, length - index * 8))
            return kept == 0 ? 0 : byte & ~UInt8(0xFF >> kept)
        }
    }

    public var description: String {
        var copy = bytes
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        _ = inet_ntop(family, &copy, &text, socklen_t(text.count))
        return "\(String(cString: text))/\(prefixLength)"
    }

    /// Whether the IP literal `address` lies inside; an IPv4-mapped IPv6
    /// address (`::ffff:127.0.0.1`) counts as the IPv4 address it carries.
    public func contains(address: String) -> Bool {
        guard var candidate = IPNetwork.addressBytes(address) else { return false }
        if candidate.count == 16, candidate.prefix(10).allSatisfy({ $0 == 0 }), candidate[10] == 0xFF, candidate[11] == 0xFF {
            candidate = Array(candidate.suffix(4))
        }
        guard candidate.count == bytes.count else { return false }
        for index in 0..<bytes.count {
            let kept = max(0, min(8, prefixLength - index * 8))
            guard kept > 0 else { break }
            let mask = ~UInt8(0xFF >> kept)
            if candidate[index] & mask != bytes[index] { return false }
        }
        return true
    }

    /// The strict forms only (dotted quad, RFC 4291 text, brackets allowed):
    /// `127.1` or `0x7f000001` is not a network a user means to write.
    static func addressBytes(_ text: String) -> [UInt8]? {
        var bare = text
        if bare.hasPrefix("["), bare.hasSuffix("]") { bare = String(bare.dropFirst().dropLast()) }
        var v4 = in_addr()
        if inet_pton(AF_INET, bare, &v4) == 1 { return withUnsafeBytes(of: v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, bare, &v6) == 1 { return withUnsafeBytes(of: v6) { Array($0) } }
        return nil
    }
}
