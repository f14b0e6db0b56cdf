import PinwatchCore
import PinwatchProbe

extension CTLogEntry {
    /// The logged certificate (or precertificate) and the issuers logged
    /// with it, as facts, leaf first: what a logged chain is judged on.
    /// Nil when one of them does not parse.
    package var chainFacts: [CertificateFacts]? {
        var facts: [CertificateFacts] = []
        for der in [certificateDER] + chain {
            guard let certificate = try? X509Certificate(der: der) else { return nil }
            facts.append(certificate.facts)
        }
        return facts
    }
}
