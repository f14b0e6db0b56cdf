import Foundation

/// One certificate of a chain as the history keeps it: enough to say what
/// changed and when (the `sha256/` pin and `cert:` digest, names, validity).
public struct ObservedCertificate: Hashable, Sendable {
    public var role: ChainRole
    public var spkiSHA256: [UInt8]
    public var certSHA256: [UInt8]
    public var subject: String
    public var issuer: String
    public var notBefore: Date
    public var notAfter: Date

    public init(
        role: ChainRole, spkiSHA256: [UInt8], certSHA256: [UInt8], subject: String, issuer: String, notBefore: Date, notAfter: Date
    ) {
        self.role = role
        self.spkiSHA256 = spkiSHA256
        self.certSHA256 = certSHA256
        self.subject = subject
        self.issuer = issuer
        self.notBefore = notBefore
        self.notAfter = notAfter
    }
}

/// A host's chain, leaf first, as one observation.
public struct ObservedChain: Hashable, Sendable {
    public var levels: [ObservedCertificate]

    public init(levels: [ObservedCertificate]) {
        self.levels = levels
    }

    /// The chain a report saw; nil when no chain was obtained.
    public init?(_ report: HostReport) {
        self.init(levels: report.levels)
    }

    /// The chain one probe of a host saw (`VariantVerdict.levels`).
    public init?(levels: [LevelReport]) {
        guard !levels.isEmpty else { return nil }
        self.levels = levels.map { level in
            let facts = level.certificate.facts
            return ObservedCertificate(
                role: level.role, spkiSHA256: facts.spkiSHA256, certSHA256: facts.certSHA256, subject: facts.subject,
                issuer: facts.issuer, notBefore: facts.notBefore, notAfter: facts.notAfter)
        }
    }

    public var leaf: ObservedCertificate? { levels.first }

    /// The keys above the leaf: what CA-tier pins match. A change here is
    /// the first sign of a CA rotation, even while pins still match.
    public var caKeys: [[UInt8]] { levels.dropFirst().map(\.spkiSHA256) }
}
