/// What people paste into `host:` besides a host name: a URL, or a name
/// with its port.
enum HostURLHint {
    /// A URL is refused with the stanza it should have been.
    static func problem(_ written: String) -> String? {
        guard let endpoint = urlEndpoint(written) else { return nil }
        guard let (name, port) = endpoint else {
            return "\(EchoedInput.quoted(written)) is a URL; host: takes a host name"
        }
        let stanza = port.map { "host: \(name) and port: \($0)" } ?? "host: \(name)"
        return "\(EchoedInput.quoted(written)) is a URL; write \(EchoedInput.shortened(stanza))"
    }

    /// The same hint for `/probe?target=`, in the query's own terms.
    static func probeTargetProblem(_ written: String) -> String? {
        guard let endpoint = urlEndpoint(written) else { return nil }
        guard let (name, port) = endpoint else {
            return "target \(EchoedInput.quoted(written)) is a URL; target= takes HOST[:PORT]"
        }
        let bracketed = name.contains(":") ? "[\(name)]" : name
        let query = port.map { "target=\(bracketed):\($0)" } ?? "target=\(bracketed)"
        return "target \(EchoedInput.quoted(written)) is a URL; write \(EchoedInput.shortened(query))"
    }

    /// nil when `written` is no URL; `.some(nil)` when it is one without a
    /// usable host name; else the host name and the port if one is written.
    private static func urlEndpoint(_ written: String) -> (host: String, port: Int?)?? {
        // Not Foundation's range(of:), which goes through NSString: this
        // runs for every host of a configuration.
        let bytes = written.utf8
        guard
            let separator = bytes.indices.first(where: { bytes[$0] == UInt8(ascii: ":") && bytes[$0...].starts(with: "://".utf8) })
        else { return nil }
        var rest = written[bytes.index(separator, offsetBy: 3)...]
        if let slash = rest.firstIndex(of: "/") { rest = rest[..<slash] }
        if let at = rest.lastIndex(of: "@") { rest = rest[rest.index(after: at)...] }
        let (name, port) = split(String(rest))
        guard !name.isEmpty, HostNameCheck.problem(name) == nil else { return .some(nil) }
        return .some((name, port))
    }

    /// `name:port` and `[v6]:port` split and `[v6]` unwrapped, as on the
    /// command line (`HostPort`); anything else — a bare IPv6 literal, a
    /// plain name, a port out of range — is left whole.
    static func split(_ written: String) -> (host: String, port: Int?) {
        guard let endpoint = try? HostPort(parsing: written) else { return (written, nil) }
        return (endpoint.host, endpoint.portWasWritten ? endpoint.port : nil)
    }
}
