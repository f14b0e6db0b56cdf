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
        let trust = TerminalText.sanitize(TrustText.describe(report.result))
        let levels = report.levels.count == 1 ? "1 level" : "\(report.levels.count) levels"
        out += "chain: \(levels), \(report.result.sentCount) sent by the server, \(trust)\n"
        if report.proxy.detected {
            out += "proxy: \(TerminalText.sanitize(report.proxy.url ?? "")) (from \(report.proxy.source ?? "?"))\n"
        }
        for level in report.levels {
            out += "\n"
            let origin = level.certificate.fromServer ? "sent by the server" : "from the trust store"
            out += "level \(level.level) · \(level.role.rawValue) · \(origin)\n"
            out += text(
                CertificateDescription(level.certificate.facts, daysLeft: level.daysLeft, countedAt: report.result.finishedAt))
        }
        out += NextChainText.section(of: report)
        if let stanza = PinStanza.document(for: report) {
            out += "\nconfig stanza (CA tier: intermediates and root; leaf tier: the leaf):\n\n"
            out += stanza
        }
        return out
    }

    /// `pin`: the certificates of one file, in file order.
    public static func text(file: String, certificates: [CertificateFacts], now: Date = Date()) -> String {
        var out = "\(TerminalText.sanitize(file)): \(certificates.count) certificate\(certificates.count == 1 ? "" : "s")\n"
        for (index, certificate) in certificates.enumerated() {
            out += "\ncertificate \(index + 1)\n"
            out += text(
                CertificateDescription(certificate, daysLeft: Verdict.daysLeft(until: certificate.notAfter, now: now), countedAt: now))
        }
        return out
    }

    /// `pin` on a certificate request or public key file: each key's pin
    /// forms, and the stanza lines that add them as backup pins.
    public static func text(file: String, keys: [PublicKeyPins]) -> String {
        let name = TerminalText.sanitize(file)
        var out = "\(name): \(keys.count) public key\(keys.count == 1 ? "" : "s") (not yet in a certificate)\n"
        for (index, key) in keys.enumerated() {
            let subject = key.subject.map { " \(TerminalText.sanitize($0))" } ?? ""
            out += "\nkey \(index + 1) · from a \(key.source)\(subject)\n"
            out += "  key      \(key.keyDescription)\n"
            for (position, form) in key.pinForms.enumerated() {
                out += "  \(position == 0 ? "pins " : "     ")    \(form)\n"
            }
        }
        out += "\nbackup pins for a config stanza (add them to the tier the key will serve in):\n\n      leaf:\n"
        for key in keys {
            out += "        - \(PinText.sha256(key.spkiSHA256))   # backup: \(FileText.comment(file))\n"
        }
        return out
    }

    /// `pin --format json` for a key file.
    public static func json(file: String, keys: [PublicKeyPins]) -> String {
        JSONValue.object([
            ("file", .string(file)),
            (
                "keys",
                .array(
                    keys.map { key in
                        .object([
                            ("source", .string(key.source)), ("subject", .optional(key.subject)), ("key", .string(key.keyDescription)),
                            ("spki_sha256", .string(PinText.base64(key.spkiSHA256))),
                            ("key_sha256", .string(PinText.base64(key.keySHA256))),
                            ("pins", .array(key.pinForms.map(JSONValue.string))),
                        ])
                    })
            ),
        ]).render()
    }

    /// `pin --format json`: one object per file.
    public static func json(file: String, certificates: [CertificateFacts], now: Date = Date()) -> String {
        let out = JSONBytes()
        JSONObjectWriter.write(to: out, depth: 0) { fields in
            fields.field("file", file)
            fields.objects("certificates", certificates) { facts, certificate in
                let description = CertificateDescription(facts, daysLeft: Verdict.daysLeft(until: facts.notAfter, now: now))
                description.writeFields(to: &certificate)
                certificate.field("ca", facts.isCA)
                certificate.field("pins", strings: description.pinForms)
            }
        }
        return out.text
    }

    /// The description's rows as `  label    value` lines, sanitised.
    private static func text(_ description: CertificateDescription) -> String {
        description.rows.map { row in
            "  " + row.label.padding(toLength: 9, withPad: " ", startingAt: 0) + TerminalText.sanitize(row.value)
        }.joined(separator: "\n") + "\n"
    }
}
