import Foundation

/// A certificate (or precertificate) logged in Certificate Transparency
/// for a watched host, before any server sends it, with what each client
/// release would do with it.
public struct CTLoggedCertificate: Hashable, Sendable {
    /// The log's timestamp for the entry.
    public var loggedAt: Date
    /// The log's description in its list.
    public var log: String
    public var index: UInt64
    public var precertificate: Bool
    /// Upper-case hex.
    public var serial: String
    public var notBefore: Date
    public var notAfter: Date
    /// The issuer's subject, as the leaf names it.
    public var issuer: String
    /// SHA-256 of the SubjectPublicKeyInfo of the first issuer logged with
    /// it; empty when none was.
    public var issuerSPKISHA256: [UInt8]
    public var leafSPKISHA256: [UInt8]
    public var verdict: CTLoggedVerdict
    /// The logged certificate's DER and its logged issuers', leaf first:
    /// what it is judged again on when the releases change; empty when
    /// not kept.
    public var chainDER: [[UInt8]]

    public init(
        loggedAt: Date, log: String, index: UInt64, precertificate: Bool, serial: String, notBefore: Date, notAfter: Date,
        issuer: String, issuerSPKISHA256: [UInt8], leafSPKISHA256: [UInt8], verdict: CTLoggedVerdict, chainDER: [[UInt8]] = []
    ) {
        self.chainDER = chainDER
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

/// What Certificate Transparency says about one host, when `ct:` is
/// configured: its recently logged certificates, newest first, and the
/// logs that failed verification (their entries are ignored, so a
/// certificate logged there for the host would go unseen).
public struct CTHostFacts: Hashable, Sendable {
    public var logged: [CTLoggedCertificate]
    /// The descriptions of the logs whose last step failed verification.
    public var misbehavingLogs: [String]

    public init(logged: [CTLoggedCertificate] = [], misbehavingLogs: [String] = []) {
        self.logged = logged
        self.misbehavingLogs = misbehavingLogs
    }

    /// The newest logged certificate some release would refuse, while it
    /// is not expired: what `next_leaf_logged` is about.
    public func breaking(at now: Date) -> CTLoggedCertificate? {
        logged.first { !$0.verdict.breaks.isEmpty && $0.notAfter > now }
    }
}
