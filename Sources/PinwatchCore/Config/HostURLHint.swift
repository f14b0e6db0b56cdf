/// What people paste into `host:` besides a host name: a URL, or a name
/// with its port.
enum HostURLHint {
    /// A URL is refused with the stanza it should have been.
    static func problem(_ written: String) -> String? {
        guard let separator = written.range(of: "://") else { return nil }
        var rest = written[separator.upperBound...]
        if let slash = rest.firstIndex(of: "/") { rest = rest[..<slash] }
        if let at = rest.lastIndex(of: "@") { rest = rest[rest.index(after: at)...] }
        let (name, port) = split(String(rest))
        guard !name.isEmpty, HostNameCheck.problem(name) == nil else {
            return "\(EchoedInput.quoted(written)) is a URL; host: takes a host name"
        }
        let stanza = port.map { "host: \(name) and port: \($0)" } ?? "host: \(name)"
        return "\(EchoedInput.quoted(written)) is a URL; write \(EchoedInput.shortened(stanza))"
    }

    /// `name:port` and `[v6]:port` split; `[v6]` unwrapped; a bare IPv6
    /// literal (several colons) or a plain name left whole.
    static func split(_ written: String) -> (host: String, port: Int?) {
        if written.hasPrefix("["), let close = written.firstIndex(of: "]") {
            let inside = String(written[written.index(after: written.startIndex)..<close])
            let rest = written[written.index(after: close)...]
            if rest.isEmpty { return (inside, nil) }
            if rest.hasPrefix(":"), let port = Int(rest.dropFirst()), (1...65_535).contains(port) { return (inside, port) }
            return (written, nil)
        }
        let colons = written.filter { $0 == ":" }.count
        guard colons == 1, let colon = written.firstIndex(of: ":") else { return (written, nil) }
        let name = String(written[..<colon])
        guard !name.isEmpty, let port = Int(written[written.index(after: colon)...]), (1...65_535).contains(port) else {
            return (written, nil)
        }
        return (name, port)
    }
}
