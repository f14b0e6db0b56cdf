import Foundation
import PinwatchProbe

/// One entry of a log, parsed from `get-entries`' `leaf_input` (RFC 6962
/// §3.4's MerkleTreeLeaf) and `extra_data` (§4.6), with its position and
/// leaf hash.
package struct CTLogEntry: Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        /// A certificate as issued.
        case certificate(der: [UInt8])
        /// A precertificate: the TBSCertificate without its poison, under
        /// the key of `issuerKeyHash` (SHA-256 of the issuer's SPKI); the
        /// precertificate itself, as submitted, from `extra_data`.
        case precertificate(issuerKeyHash: [UInt8], tbsCertificate: [UInt8], precertificate: [UInt8])
    }

    package let index: UInt64
    package let leafHash: [UInt8]
    /// Milliseconds since the Unix epoch.
    package let timestamp: UInt64
    package let kind: Kind
    /// The issuers the submitter sent, leaf's issuer first (DER); for a
    /// static-ct-api log, filled in from its issuers once the entry is kept.
    package internal(set) var chain: [[UInt8]]

    private static let x509Entry: UInt64 = 0
    private static let precertEntry: UInt64 = 1

    /// `leafHash`, when the caller has already computed it, is not computed again.
    package init(index: UInt64, leafInput: [UInt8], extraData: [UInt8], leafHash: [UInt8]? = nil) throws(CTFormatError) {
        self.index = index
        self.leafHash = leafHash ?? MerkleHash.leaf(leafInput)
        var leaf = TLSReader(leafInput, what: "entry \(index)'s leaf_input")
        guard try leaf.integer(1, "version") == 0 else { throw CTFormatError("entry \(index): MerkleTreeLeaf version is not v1") }
        guard try leaf.integer(1, "leaf type") == 0 else { throw CTFormatError("entry \(index): leaf type is not timestamped_entry") }
        timestamp = try leaf.integer(8, "timestamp")
        let entryType = try leaf.integer(2, "entry type")
        var extra = TLSReader(extraData, what: "entry \(index)'s extra_data")
        switch entryType {
        case Self.x509Entry:
            let certificate = try leaf.vector(lengthWidth: 3, minimum: 1, "certificate")
            kind = .certificate(der: certificate)
            chain = try Self.certificates(try extra.vector(lengthWidth: 3, "certificate_chain"), index: index)
        case Self.precertEntry:
            let issuerKeyHash = try leaf.fixed(32, "issuer_key_hash")
            let tbs = try leaf.vector(lengthWidth: 3, minimum: 1, "tbs_certificate")
            let precertificate = try extra.vector(lengthWidth: 3, minimum: 1, "pre_certificate")
            kind = .precertificate(issuerKeyHash: issuerKeyHash, tbsCertificate: tbs, precertificate: precertificate)
            chain = try Self.certificates(try extra.vector(lengthWidth: 3, "precertificate_chain"), index: index)
        default:
            throw CTFormatError("entry \(index): unknown entry type \(entryType)")
        }
        _ = try leaf.vector(lengthWidth: 2, "extensions")
        try leaf.expectEnd()
        try extra.expectEnd()
    }

    private static func certificates(_ vector: [UInt8], index: UInt64) throws(CTFormatError) -> [[UInt8]] {
        var reader = TLSReader(vector, what: "entry \(index)'s chain")
        var certificates: [[UInt8]] = []
        while !reader.isAtEnd {
            certificates.append(try reader.vector(lengthWidth: 3, minimum: 1, "certificate"))
        }
        return certificates
    }

    package var isPrecertificate: Bool {
        if case .precertificate = kind { return true }
        return false
    }

    /// The certificate whose names and key this entry stands for: the
    /// certificate, or the precertificate as submitted.
    package var certificateDER: [UInt8] {
        switch kind {
        case .certificate(let der): der
        case .precertificate(_, _, let precertificate): precertificate
        }
    }
}
