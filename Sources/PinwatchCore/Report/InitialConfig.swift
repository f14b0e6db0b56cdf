import Foundation

/// `pinwatch init`: a first configuration from the live chains of the
/// hosts given, with their CA-tier pins.
///
/// The pins are the live chain's, which is not what a pinned client
/// carries: every pin block says so, so that nobody mistakes a file that
/// says `ok` today for proof that the apps will connect.
package enum InitialConfig {
    /// The file's text: one entry per host that gave a chain, in the order
    /// given; hosts that did not are named in a comment at the end.
    ///
    /// `timeout` is written as given (`--timeout`), nil leaving the
    /// configuration's default; a `trust:` bundle is written as an absolute
    /// path, since relative paths are read from the file's folder.
    package static func yaml(reports: [HostReport], timeout: String?, trust: TrustSource, now: Date) -> String {
        let answered = reports.filter { $0.result.failure == nil && !$0.levels.isEmpty }
        let failed = reports.filter { $0.result.failure != nil || $0.levels.isEmpty }
        var lines = [
            "# pinwatch configuration written by `pinwatch init` on \(DateText.readableUTC(now)).",
            "# `pinwatch validate` checks it, `pinwatch check` probes it once, `pinwatch` watches it;",
            "# docs/CONFIGURATION.md lists every key.",
        ]
        if let timeout {
            let plain = timeout.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == ".") }
            lines.append("timeout: \(plain ? timeout : PinStanza.scalar(timeout))")
        }
        if case .bundle(let path) = trust { lines.append("trust: \(PinStanza.scalar(path))") }
        lines.append(answered.isEmpty ? "hosts: []" : "hosts:")
        for report in answered {
            lines += entry(report, now: now)
        }
        if !failed.isEmpty {
            lines.append("# not written, no chain was obtained:")
            lines += failed.map { "#   \(FileText.comment($0.config.displayName)): \(FileText.comment(problem(of: $0)))" }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Why a host's entry was left out or is not trusted, in one line for
    /// a terminal (the file's comment escapes it further: `FileText`).
    package static func problem(of report: HostReport) -> String {
        if let failure = report.result.failure {
            return TerminalText.sanitize("\(failure.kind.rawValue): \(failure.message)")
        }
        if report.levels.isEmpty { return "no certificate" }
        return TerminalText.sanitize("the chain is not trusted: \(report.result.trustError ?? "verification failed")")
    }

    private static func entry(_ report: HostReport, now: Date) -> [String] {
        let config = report.config
        var lines = ["  - host: \(PinStanza.scalar(config.host))", "    port: \(config.port)"]
        if config.serverName != config.host { lines.append("    sni: \(PinStanza.scalar(config.serverName))") }
        if !report.result.trusted {
            lines.append("    # \(FileText.comment(problem(of: report))): until --trust names its CA, this host is blocked.")
        }
        let ca = report.levels.dropFirst()
        guard !ca.isEmpty else {
            lines.append("    # the live chain is one certificate: no intermediate or root to pin (CA tier).")
            return lines
        }
        lines += [
            "    # The live chain's CA-tier pins on \(DateText.day(now)), not your apps' pins:",
            "    # `pinwatch import APP-FILE` reads the pins an app carries; pinwatch then checks those.",
            "    pins:",
            "      ca:",
        ]
        for level in ca {
            let subject = FileText.comment(level.certificate.facts.subject)
            lines.append("        - \(PinText.sha256(level.certificate.facts.spkiSHA256))   # \(level.role.rawValue): \(subject)")
        }
        return lines
    }
}
