import Foundation

/// The level-by-level listing of `inspect` and `pin`: every fact and every
/// pin form of each certificate, then a stanza to paste into the config.
///
/// Certificate strings are sanitised here because this text goes straight
/// to a terminal.
public enum ChainListing {
    /// `inspect`: the live chain of one host.
    public static func text(report: HostReport) -> String {
        let config = report.config
        var out = "\(TerminalText.sanitize(config.displayName))"
        if config.serverName != config.host { out += " (SNI \(TerminalText.sanitize(config.serverName)))" }
        if let address = report.result.address { out += " via \(TerminalText.sanitize(address))" }
        out += "\n"
        if let failure = report.result.failure {
            return out + "error (\(failure.kind.rawValue)): \(TerminalText.sanitize(failure.message))\n"
        }
        let trust = report.result.trusted
            ? "trusted"
            : "NOT trusted: \(TerminalText.sanitize(report.result.trustError ?? "unknown reason"))"
        out += "chain: \(report.levels.count) levels, \(report.result.sentCount) sent by the server, \(trust)\n"
        if report.proxy.detected {
            out += "proxy: \(TerminalText.sanitize(report.proxy.url ?? "")) (from \(report.proxy.source ?? "?"))\n"
        }
        for level in report.levels {
            out += "\n"
            let origin = level.certificate.fromServer ? "sent by the server" : "from the trust store"
            out += "level \(level.level) · \(level.role.rawValue) · \(origin)\n"
            out += facts(level.certificate.facts, daysLeft: level.daysLeft)
        }
        let chain = report.levels.map(\.certificate)
        if !chain.isEmpty {
            out += "\nconfig stanza (CA tier: intermediates and root; leaf tier: the leaf):\n\n"
            out += "hosts:\n"
            out += PinStanza.yaml(host: config.host, port: config.port, sni: config.serverName, chain: chain)
        }
        return out
    }

    /// `pin`: the certificates of one file, in file order.
    public static func text(file: String, certificates: [CertificateFacts], now: Date = Date()) -> String {
        var out = "\(TerminalText.sanitize(file)): \(certificates.count) certificate\(certificates.count == 1 ? "" : "s")\n"
        for (index, certificate) in certificates.enumerated() {
            out += "\ncertificate \(index + 1)\n"
            out += facts(certificate, daysLeft: Verdict.daysLeft(until: certificate.notAfter, now: now))
        }
        return out
    }

    /// `pin --format json`: one object per file.
    public static func json(file: String, certificates: [CertificateFacts], now: Date = Date()) -> String {
        JSONValue.object([
            ("file", .string(file)),
            ("certificates", .array(certificates.map { facts in
                let forms = PinForms(facts)
                return .object([
                    ("subject", .string(facts.subject)),
                    ("issuer", .string(facts.issuer)),
                    ("not_before", .string(DateText.iso8601(facts.notBefore))),
                    ("not_after", .string(DateText.iso8601(facts.notAfter))),
                    ("days_left", .int(Verdict.daysLeft(until: facts.notAfter, now: now))),
                    ("key", .string(facts.keyDescription)),
                    ("ca", .bool(facts.isCA)),
                    ("spki_sha256", .string(PinText.base64(facts.spkiSHA256))),
                    ("key_sha256", .string(PinText.base64(facts.keySHA256))),
                    ("cert_sha256", .string(PinText.hex(facts.certSHA256))),
                    ("pins", .array(forms.all.map(JSONValue.string))),
                ])
            })),
        ]).render()
    }

    private static func facts(_ facts: CertificateFacts, daysLeft: Int) -> String {
        let forms = PinForms(facts)
        let validity = "\(DateText.iso8601(facts.notBefore)) → \(DateText.iso8601(facts.notAfter))"
        let remaining = daysLeft >= 0 ? "\(daysLeft) days left" : "EXPIRED \(-daysLeft) days ago"
        var lines = [
            "  subject  \(TerminalText.sanitize(facts.subject))",
            "  issuer   \(TerminalText.sanitize(facts.issuer))",
            "  valid    \(validity) (\(remaining))",
            "  key      \(TerminalText.sanitize(facts.keyDescription))\(facts.isCA ? " · CA" : "")",
        ]
        if !facts.subjectAltNames.isEmpty {
            lines.append("  names    \(TerminalText.sanitize(facts.subjectAltNames.joined(separator: ", ")))")
        }
        lines += [
            "  pins     \(forms.sha256)",
            "           \(forms.spki)",
            "           \(forms.key)",
            "           \(forms.cert)",
        ]
        return lines.joined(separator: "\n") + "\n"
    }
}
