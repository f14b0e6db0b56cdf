/// One of N instances splitting a fleet with no coordination (`--shard I/N`,
/// `shard:`): each keeps the hosts whose stable hash falls in its shard.
public struct Shard: Hashable, Sendable, CustomStringConvertible {
    /// 0-based, as Prometheus' `hashmod` counts.
    public let index: Int
    public let count: Int

    public init?(index: Int, count: Int) {
        guard count >= 1, count <= 1_000, (0..<count).contains(index) else { return nil }
        self.index = index
        self.count = count
    }

    /// `I/N`, with 0 ≤ I < N.
    public init?(parsing text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else { return nil }
        self.init(index: index, count: count)
    }

    public var description: String { "\(index)/\(count)" }

    /// Why `text` is not a shard, for `--shard` and `shard:` alike; nil when it is one.
    public static func problem(_ text: String) -> String? {
        Shard(parsing: text) == nil ? "\(EchoedInput.quoted(text)) is not a shard: expected I/N with 0 ≤ I < N, e.g. 0/3" : nil
    }

    /// Whether this shard watches `host`. The hash (FNV-1a, 64 bits, over
    /// `host:port/sni`) is the same on every machine and every run, unlike
    /// Swift's seeded `Hasher`, so N instances agree without talking.
    public func contains(_ host: HostConfig) -> Bool {
        Int(Self.stableHash("\(host.host.lowercased()):\(host.port)/\(host.serverName.lowercased())") % UInt64(count)) == index
    }

    static func stableHash(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}

/// A command run on every severity transition (`hooks:`), with a JSON
/// event on its standard input. An argv list, never a shell line.
public struct HookCommand: Hashable, Sendable {
    public static let defaultTimeout: Double = 10

    public var arguments: [String]
    public var timeout: Double
    /// Variables passed beyond the minimal set (`HookEnvironment`): `env:`.
    public var environment: [String]

    public init(arguments: [String], timeout: Double = HookCommand.defaultTimeout, environment: [String] = []) {
        self.arguments = arguments
        self.timeout = timeout
        self.environment = environment
    }
}
