import PinwatchCore

/// What each table row calls its host: `name:port`, and `name:port→address`
/// when the same name and port are configured more than once (one host
/// behind several backends, told apart by `connect:`), and `@vantage` when
/// a fleet's hosts come from more than one vantage.
struct HostLabels: Hashable, Sendable {
    /// Per host: the name part, which may be shortened, and the part that
    /// must stay whole (`:port`, `→address`).
    struct Part: Hashable, Sendable {
        var name: String
        var suffix: String
    }

    private(set) var parts: [Part] = []
    /// The widest label: the host column needs no more.
    private(set) var widest = 0

    init(_ hosts: [HostConfig]) {
        var seen: [String: Int] = [:]
        for host in hosts { seen[host.displayName.lowercased(), default: 0] += 1 }
        // A fleet read from Prometheus: the vantage tells apart the rows
        // of one host once there is more than one vantage.
        let severalVantages = Set(hosts.compactMap(\.vantage)).count > 1
        parts = hosts.map { host in
            let name = host.host.contains(":") ? "[\(host.host)]" : host.host
            var suffix = ":\(host.port)"
            if let address = host.connectAddress, (seen[host.displayName.lowercased()] ?? 0) > 1 { suffix += "→\(address)" }
            if severalVantages, let vantage = host.vantage { suffix += " @\(vantage)" }
            return Part(name: name, suffix: suffix)
        }
        widest = parts.map { DisplayWidth.of($0.name) + DisplayWidth.of($0.suffix) }.max() ?? 0
    }

    /// The label in at most `width` cells: a long name loses its middle
    /// (`very-long…-name.example.com:8443`), never its port.
    func label(_ index: Int, width: Int) -> String {
        guard parts.indices.contains(index) else { return "" }
        let name = parts[index].name
        let suffix = parts[index].suffix
        let suffixWidth = DisplayWidth.of(suffix)
        guard DisplayWidth.of(name) + suffixWidth > width else { return name + suffix }
        let room = width - suffixWidth - 1
        guard room >= 2 else { return String((name + suffix).prefix(max(0, width))) }
        let characters = Array(name)
        let head = (room + 1) / 2
        let tail = room - head
        return String(characters.prefix(head)) + "…" + String(characters.suffix(tail)) + suffix
    }
}
