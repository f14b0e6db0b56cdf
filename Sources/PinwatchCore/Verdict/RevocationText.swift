import Foundation

/// What the revocation findings of a chain make of its alerts and reason.
/// Only a verified response says `revoked`; a level nothing verified
/// vouched for is unknown, a warning, never a revocation.
enum RevocationText {
    static func alerts(_ findings: [RevocationFinding]) -> [HostAlert] {
        if findings.contains(where: { if case .revoked = $0.outcome { return true } else { return false } }) {
            return [.revoked]
        }
        var alerts: [HostAlert] = []
        let levels = Set(findings.map(\.level)).sorted()
        // A level one source vouches for is known, whatever another failed to say.
        let unvouched = levels.filter { level in !findings.contains { $0.level == level && $0.outcome == .good } }
        let stale = unvouched.filter { level in findings.contains { $0.level == level && $0.isStale } }
        if !stale.isEmpty { alerts.append(.crlStale) }
        if unvouched.contains(where: { !stale.contains($0) }) { alerts.append(.crlUnavailable) }
        return alerts
    }

    /// `the leaf certificate was revoked on 2026-11-30 (keyCompromise; CRL
    /// http://crl.example/ca.crl): reissue it`.
    static func revokedSentence(_ findings: [RevocationFinding]) -> String {
        for finding in findings {
            guard case .revoked(let reason, let date) = finding.outcome else { continue }
            let why = [reason, source(finding.source)].compactMap { $0 }.joined(separator: "; ")
            return "the \(levelName(finding.level)) certificate was revoked on \(DateText.day(date)) (\(why)): "
                + "clients that check revocation refuse it; reissue it"
        }
        return "a certificate of the chain was revoked"
    }

    static func staleSentence(_ findings: [RevocationFinding]) -> String {
        for finding in findings {
            guard case .stale(let nextUpdate) = finding.outcome else { continue }
            return "the \(levelName(finding.level)) certificate's CRL (\(finding.source.url ?? "")) was due for renewal on "
                + "\(DateText.day(nextUpdate)) and is still the one served: a revocation since would not show"
        }
        return "a CRL of the chain is past its next update"
    }

    static func unavailableSentence(_ findings: [RevocationFinding]) -> String {
        for finding in findings {
            guard case .unavailable(let problem) = finding.outcome else { continue }
            return "revocation of the \(levelName(finding.level)) certificate is unknown: \(source(finding.source)): \(problem)"
        }
        return "revocation of a certificate of the chain is unknown"
    }

    static func source(_ source: RevocationFinding.Source) -> String {
        switch source {
        case .crl(let url): return "CRL \(url)"
        case .stapledOCSP: return "stapled OCSP response"
        }
    }

    static func levelName(_ level: Int) -> String {
        level == 0 ? "leaf" : "level \(level)"
    }
}

extension RevocationFinding {
    var isStale: Bool {
        if case .stale = outcome { return true }
        return false
    }
}
