/// A ready-to-paste `hosts:` entry with the live chain's pins (`inspect`).
public enum PinStanza {
    /// The entry indented to sit under `hosts:`. Intermediates and the root
    /// go to `ca`, the leaf to `leaf`, each with its subject as a comment.
    ///
    /// Subjects come from the server: each is written as a comment of
    /// printable ASCII (`FileText`), so none can end its line and add keys.
    public static func yaml(
        host: String, port: Int, sni: String?, connect: String? = nil, trust: TrustSource = .system, chain: [ChainCertificate],
        recommended: [RecommendedPin] = [], untrusted: String? = nil
    ) -> String {
        var lines = ["  - host: \(scalar(host))", "    port: \(port)"]
        if let sni, sni != host { lines.append("    sni: \(scalar(sni))") }
        // What was dialled and trusted, so the pasted entry probes the same.
        if let connect { lines.append("    connect: \(scalar(connect))") }
        if case .bundle(let path) = trust { lines.append("    trust: \(scalar(path))") }
        guard !chain.isEmpty else {
            lines.append("    # no certificate was obtained: no pins to suggest")
            return lines.joined(separator: "\n") + "\n"
        }
        // Pinning a chain no client accepts pins what an attacker or a
        // misconfiguration put there: nothing is suggested until it verifies.
        if let untrusted {
            lines.append("    # the chain is not trusted (\(FileText.comment(untrusted))): fix the trust first; no pins to suggest")
            return lines.joined(separator: "\n") + "\n"
        }
        lines.append("    pins:")
        let ca = chain.dropFirst()
        // The pins that keep the next chains (a sibling intermediate, a new
        // root, another CA) accepted, beside the live chain's own.
        let backups = recommended.filter { pin in !ca.contains { PinText.sha256($0.facts.spkiSHA256) == pin.pin } }
        if !ca.isEmpty || !backups.isEmpty {
            lines.append("      ca:")
            lines += ca.map(pinLine)
            lines += backups.map { "        - \($0.pin)   # \(FileText.comment($0.subject)) (recommended: survives the next chains)" }
        }
        lines.append("      leaf:")
        lines.append(pinLine(chain[0]))
        return lines.joined(separator: "\n") + "\n"
    }

    /// The one stanza `inspect` (text and JSON) and the dashboard's `y`
    /// offer for a host's latest result, `hosts:` line included; nil when
    /// no chain was obtained, so there are no pins to suggest.
    public static func document(for report: HostReport) -> String? {
        // A host of several probes: the chain most of its addresses serve.
        let chain = VariantFold.chainMostProbesServe(report) ?? report.levels.map(\.certificate)
        guard !chain.isEmpty else { return nil }
        let untrusted = report.result.trusted ? nil : (report.result.trustError ?? "verification failed")
        return "hosts:\n"
            + yaml(
                host: report.config.host, port: report.config.port, sni: report.config.serverName,
                connect: report.config.connectAddress, trust: report.config.trust, chain: chain,
                recommended: report.nextChains?.recommended ?? [], untrusted: untrusted)
    }

    /// The stanza for a configured (or inspected) host: its name, port,
    /// SNI, `connect:` and `trust:` bundle as given, and the chain's pins.
    public static func yaml(for host: HostConfig, chain: [ChainCertificate], recommended: [RecommendedPin] = []) -> String {
        yaml(
            host: host.host, port: host.port, sni: host.serverName, connect: host.connectAddress, trust: host.trust, chain: chain,
            recommended: recommended)
    }

    private static func pinLine(_ certificate: ChainCertificate) -> String {
        "        - \(PinText.sha256(certificate.facts.spkiSHA256))   # \(FileText.comment(certificate.facts.subject))"
    }

    /// Plain when it is obviously a host name, else double-quoted with
    /// every character outside printable ASCII escaped (`FileText`).
    public static func scalar(_ text: String) -> String {
        let plain =
            !text.isEmpty && text.first?.isLetter == true
            && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }
        // Words YAML 1.1 reads as booleans or null stay strings only when quoted.
        let special = ["y", "n", "yes", "no", "on", "off", "true", "false", "null"].contains(text.lowercased())
        if plain && !special { return text }
        return FileText.doubleQuoted(text)
    }
}
