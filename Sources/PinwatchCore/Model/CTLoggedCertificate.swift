import Foundation

/// A certificate (or precertificate) logged in Certificate Transparency
/// for a watched host, before any server sends it, with what each client
/// release would do with it.
package struct CTLoggedCertificate: Hashable, Sendable {
    /// The log's timestamp for the entry.
    package var loggedAt: Date
    /// The log's description in its list.
    package var log: String
    package var index: UInt64
    package var precertificate: Bool
    /// Upper-case hex.
    package var serial: String
    package var notBefore: Date
    package var notAfter: Date
    /// The issuer's subject, as the leaf names it.
    package var issuer: String
    /// SHA-256 of the SubjectPublicKeyInfo of the first issuer logged with
    /// it; empty when none was.
    package var issuerSPKISHA256: [UInt8]
    package var leafSPKISHA256: [UInt8]
    package var verdict: CTLoggedVerdict

    package init(
        loggedAt: Date, log: String, index: UInt64, precertificate: Bool, serial: String, notBefore: Date, notAfter: Date,
        issuer: String, issuerSPKISHA256: [UInt8], leafSPKISHA256: [UInt8], verdict: CTLoggedVerdict
    ) {
        self.loggedAt = loggedAt
        self.log = log
        self.index = index
        self.precertificate = precertificate
        self.serial = serial
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.issuer = issuer
        self.issuerSPKISHA256 = issuerSPKISHA256
        self.leafSPKISHA256 = leafSPKISHA256
        self.verdict = verdict
    }
}
