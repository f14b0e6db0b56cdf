import Foundation

/// `prometheus:` and `watch --prometheus`: the server the fleet dashboard
/// reads its verdicts from.
public enum PrometheusServer {
    /// Why `text` cannot be a Prometheus server's base URL, or nil.
    public static func problem(_ text: String) -> String? {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty, url.query == nil, url.fragment == nil
        else {
            return "\(EchoedInput.quoted(text)) is not the http:// or https:// URL of a Prometheus server (http://prometheus:9090)"
        }
        return nil
    }
}
