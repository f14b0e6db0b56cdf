import Foundation
import PinwatchCore
import PinwatchProbe

/// One certificate read from a catalogue file: parsed by OpenSSL (pins are
/// computed from it, never typed) and kept for signature checks, or, for
/// the built-in data, its facts as computed when the data was embedded.
struct CatalogueCertificateFile {
    /// Nil for facts embedded at build time: they come only from a folder
    /// that checks no signature (the built-in data, checked by its tests).
    let x509: X509Certificate?
    var entry: CatalogueCertificate

    /// Every certificate in `text`; none, or a file that is not a
    /// certificate, is a problem for the caller to report.
    static func read(_ text: String, label: String) throws -> [CatalogueCertificateFile] {
        try CertificateReader.certificates(in: Array(text.utf8), source: label).map { x509 in
            let facts = x509.facts
            return CatalogueCertificateFile(
                x509: x509, entry: CatalogueCertificate(name: commonName(facts.subject), facts: facts, file: label))
        }
    }

    /// A certificate known by its facts alone.
    init(facts: CertificateFacts, label: String) {
        x509 = nil
        entry = CatalogueCertificate(name: Self.commonName(facts.subject), facts: facts, file: label)
    }

    private init(x509: X509Certificate, entry: CatalogueCertificate) {
        self.x509 = x509
        self.entry = entry
    }

    /// The subject's CN (`R10`), as reasons name CAs (the OU where the CN
    /// only repeats the organisation); the whole subject when it has none.
    static func commonName(_ subject: String) -> String { CertificateName.short(subject) }

    /// Whether `issuer` signed this certificate, or (for a root) itself.
    func isSigned(by issuer: CatalogueCertificateFile) -> Bool {
        guard let x509, let issuerX509 = issuer.x509 else { return false }
        return x509.isSigned(by: issuerX509)
    }
}
