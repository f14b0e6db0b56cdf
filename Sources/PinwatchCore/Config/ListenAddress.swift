/// `listen:` and `serve --listen`: where the exporter accepts scrapes.
public enum ListenAddress {
    public static let defaultValue = "127.0.0.1:9715"

    /// `host:port` or `[v6]:port`; nil when it is not one.
    public static func split(_ text: String) -> (host: String, port: Int)? {
        let host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard !host.isEmpty, let port = Int(portText), (1...65_535).contains(port) else { return nil }
        return (String(host), port)
    }

    public static func problem(_ text: String) -> String? {
        guard let (host, _) = split(text) else {
            return "\(EchoedInput.quoted(text)) is not host:port (e.g. 127.0.0.1:9715 or [::1]:9715)"
        }
        return HostNameCheck.problem(host)
    }
}
