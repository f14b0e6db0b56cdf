import Foundation

/// What pinwatch knows of one certificate: everything the reports show and
/// the three digests the pins are compared with.
///
/// Strings come from a certificate and are untrusted: they are stored as
/// decoded and sanitised only where they meet a terminal.
public struct CertificateFacts: Hashable, Sendable {
    /// One line, RFC 4514 style, most specific first: `CN=api.example.com,O=Example`.
    public var subject: String
    public var issuer: String
    public var notBefore: Date
    public var notAfter: Date
    /// `ECDSA P-256`, `RSA 2048`, `Ed25519`, …
    public var keyDescription: String
    /// SHA-256 of the DER SubjectPublicKeyInfo.
    public var spkiSHA256: [UInt8]
    /// SHA-256 of the SPKI BIT STRING content (iOS `SecKeyCopyExternalRepresentation`).
    public var keySHA256: [UInt8]
    /// SHA-256 of the whole DER certificate.
    public var certSHA256: [UInt8]
    /// SHA-1 of the DER SubjectPublicKeyInfo, for legacy `sha1/` pins.
    public var spkiSHA1: [UInt8]
    /// DNS names and IP addresses of the subjectAltName extension.
    public var subjectAltNames: [String]
    public var isCA: Bool
    /// Self-issued (subject = issuer, key identifiers agree) and signed by
    /// its own key. The probe checks that signature only where the chain
    /// role depends on it: not for the leaf, which is always the leaf, nor
    /// for the trust anchor of a verified chain, which is always the root.
    public var isSelfSigned: Bool

    public init(
        subject: String, issuer: String, notBefore: Date, notAfter: Date,
        keyDescription: String, spkiSHA256: [UInt8], keySHA256: [UInt8], certSHA256: [UInt8],
        subjectAltNames: [String] = [], isCA: Bool = false, isSelfSigned: Bool = false, spkiSHA1: [UInt8] = []
    ) {
        self.spkiSHA1 = spkiSHA1
        self.subject = subject
        self.issuer = issuer
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.keyDescription = keyDescription
        self.spkiSHA256 = spkiSHA256
        self.keySHA256 = keySHA256
        self.certSHA256 = certSHA256
        self.subjectAltNames = subjectAltNames
        self.isCA = isCA
        self.isSelfSigned = isSelfSigned
    }

    public func digest(for kind: Pin.Kind) -> [UInt8] {
        switch kind {
        case .spki: return spkiSHA256
        case .key: return keySHA256
        case .cert: return certSHA256
        case .spkiSHA1: return spkiSHA1
        }
    }
}

/// One level of a chain as the probe saw it.
public struct ChainCertificate: Hashable, Sendable {
    /// Shared by the certificate's copies: a report holds each level's
    /// twice, in the probe's chain and in the level, and a fleet's reports
    /// are one per row.
    public var facts: CertificateFacts {
        get { shared.value }
        set { shared = SharedValue(newValue) }
    }
    /// False for a root (or intermediate) the trust store supplied.
    public var fromServer: Bool
    private var shared: SharedValue<CertificateFacts>

    public init(facts: CertificateFacts, fromServer: Bool) {
        shared = SharedValue(facts)
        self.fromServer = fromServer
    }
}

/// What a level of a chain is, decided from the certificate rather than
/// its position (DESIGN §5): level 0 is the leaf; a later level is the root
/// only when it is self-issued and self-signed, or is the trust anchor the
/// store supplied; every other level is an intermediate. An untrusted chain
/// that stops before a root therefore has no root level at all.
public enum ChainRole: String, Sendable, Codable, CaseIterable {
    case leaf, intermediate, root

    /// - Parameter isTrustAnchor: the last level of a chain that verified.
    public static func role(ofLevel level: Int, isSelfSigned: Bool, isTrustAnchor: Bool) -> ChainRole {
        if level == 0 { return .leaf }
        return isSelfSigned || isTrustAnchor ? .root : .intermediate
    }
}
