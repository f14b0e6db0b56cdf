import Foundation

/// What the probe kept of one level of a verified chain so that its
/// revocation can be looked up after the handshake: the serial, where its
/// issuer publishes CRLs, and the issuer's key that must have signed them.
public struct RevocationSubject: Hashable, Sendable {
    public var level: Int
    /// The serial number's magnitude, big-endian, without leading zeros.
    public var serial: [UInt8]
    /// The `http://` URIs of the crlDistributionPoints extension, in order
    /// (others are never fetched: a CRL over HTTPS could need itself).
    public var crlURLs: [String]
    /// The issuer's DER SubjectPublicKeyInfo, which the CRL must be signed by.
    public var issuerKey: [UInt8]
    /// SHA-256 of `issuerKey`: with the URL, what a fetched CRL is cached by.
    public var issuerKeySHA256: [UInt8]

    public init(level: Int, serial: [UInt8], crlURLs: [String], issuerKey: [UInt8], issuerKeySHA256: [UInt8]) {
        self.level = level
        self.serial = serial
        self.crlURLs = crlURLs
        self.issuerKey = issuerKey
        self.issuerKeySHA256 = issuerKeySHA256
    }
}

/// What one source said of one level's revocation.
public struct RevocationFinding: Hashable, Sendable {
    public enum Source: Hashable, Sendable {
        case crl(url: String)
        /// The OCSP response the server stapled to its handshake (pinwatch
        /// never asks a responder itself).
        case stapledOCSP

        public var kind: String {
            switch self {
            case .crl: return "crl"
            case .stapledOCSP: return "ocsp_stapled"
            }
        }

        public var url: String? {
            if case .crl(let url) = self { return url }
            return nil
        }
    }

    public enum Outcome: Hashable, Sendable {
        /// A response signed by the issuer does not list the serial.
        case good
        /// Only from a response whose signature verified with the issuer's key.
        case revoked(reason: String?, date: Date)
        /// No verified answer: the fetch failed, the body was too large or
        /// not a CRL, or its signature is not the issuer's.
        case unavailable(String)
        /// A verified CRL that does not list the serial, past its nextUpdate.
        case stale(nextUpdate: Date)
    }

    public var level: Int
    public var source: Source
    public var outcome: Outcome

    public init(level: Int, source: Source, outcome: Outcome) {
        self.level = level
        self.source = source
        self.outcome = outcome
    }

    /// `keyCompromise`: RFC 5280's name for a CRLReason code.
    public static func reasonName(code: Int) -> String {
        let names = [
            0: "unspecified", 1: "keyCompromise", 2: "cACompromise", 3: "affiliationChanged", 4: "superseded",
            5: "cessationOfOperation", 6: "certificateHold", 8: "removeFromCRL", 9: "privilegeWithdrawn", 10: "aACompromise",
        ]
        return names[code] ?? "reason \(code)"
    }
}
