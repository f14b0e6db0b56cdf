import Foundation

/// `check --client NAME` and the client view: one release's verdicts.
public enum ClientSelection {
    /// Why `name` cannot be judged, nil when it can.
    public static func problem(_ name: String, in config: Config) -> String? {
        guard let client = config.clients.first(where: { $0.name == name }) else {
            let names = config.clients.map { EchoedInput.quoted($0.name) }
            let known = names.isEmpty ? "the configuration has no clients:" : "clients: " + names.joined(separator: ", ")
            return "no client named \(EchoedInput.quoted(name)) (\(known))"
        }
        guard config.hosts.contains(where: { !client.rules(for: $0.serverName).isEmpty }) else {
            return "client \(EchoedInput.quoted(name)) pins none of the monitored hosts"
        }
        return nil
    }

    /// The client's own verdict for each host it pins, its name leading
    /// each reason; `now` dates the days left in those reasons.
    public static func reports(of name: String, in reports: [HostReport], now: Date) -> [HostReport] {
        reports.compactMap { report in
            report.clients.first { $0.client == name }.map { verdict in
                var own = verdict.report.replacing(decidedBy: .some(verdict.decidedBy), now: now)
                own.config = report.config
                return own
            }
        }
    }
}
