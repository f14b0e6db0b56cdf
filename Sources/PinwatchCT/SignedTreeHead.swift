import Foundation
import PinwatchProbe

/// RFC 6962 §4.3's `get-sth` answer: a tree size and root the log signed.
package struct SignedTreeHead: Sendable, Equatable {
    package var treeSize: UInt64
    /// Milliseconds since the Unix epoch.
    package var timestamp: UInt64
    package var rootHash: [UInt8]
    /// The TLS-encoded `DigitallySigned` of `tree_head_signature`.
    package var signature: [UInt8]

    package init(treeSize: UInt64, timestamp: UInt64, rootHash: [UInt8], signature: [UInt8]) {
        self.treeSize = treeSize
        self.timestamp = timestamp
        self.rootHash = rootHash
        self.signature = signature
    }

    private struct Wire: Decodable {
        let treeSize: UInt64
        let timestamp: UInt64
        let rootHash: String
        let signature: String

        enum CodingKeys: String, CodingKey {
            case treeSize = "tree_size"
            case timestamp
            case rootHash = "sha256_root_hash"
            case signature = "tree_head_signature"
        }
    }

    package init(json: [UInt8]) throws(CTFormatError) {
        let wire: Wire
        do {
            wire = try JSONDecoder().decode(Wire.self, from: Data(json))
        } catch {
            throw CTFormatError("get-sth: not the JSON of a signed tree head")
        }
        guard let root = Data(base64Encoded: wire.rootHash), root.count == MerkleHash.size else {
            throw CTFormatError("get-sth: sha256_root_hash is not 32 bytes of base64")
        }
        guard let signature = Data(base64Encoded: wire.signature) else {
            throw CTFormatError("get-sth: tree_head_signature is not base64")
        }
        self.init(treeSize: wire.treeSize, timestamp: wire.timestamp, rootHash: [UInt8](root), signature: [UInt8](signature))
    }

    /// RFC 6962 §3.5's TreeHeadSignature: what the log signed.
    package var signedInput: [UInt8] {
        // version v1 (0), signature_type tree_hash (1)
        [0, 1] + TLSWriter.integer(timestamp, width: 8) + TLSWriter.integer(treeSize, width: 8) + rootHash
    }

    /// True when the signature is the log's over this tree head: SHA-256
    /// with ECDSA or RSA, as RFC 6962 §2.1.4 allows, and nothing else.
    package func isSigned(byKey subjectPublicKeyInfo: [UInt8]) -> Bool {
        guard let signed = try? DigitallySigned(signature) else { return false }
        return signed.verify(signedInput, subjectPublicKeyInfo: subjectPublicKeyInfo)
    }
}

/// RFC 5246 §4.7's `DigitallySigned` as RFC 6962 uses it.
struct DigitallySigned {
    static let sha256: UInt8 = 4
    static let rsa: UInt8 = 1
    static let ecdsa: UInt8 = 3

    let hashAlgorithm: UInt8
    let signatureAlgorithm: UInt8
    let signature: [UInt8]

    init(_ bytes: [UInt8]) throws(CTFormatError) {
        var reader = TLSReader(bytes, what: "DigitallySigned")
        hashAlgorithm = UInt8(try reader.integer(1, "hash algorithm"))
        signatureAlgorithm = UInt8(try reader.integer(1, "signature algorithm"))
        signature = try reader.vector(lengthWidth: 2, minimum: 1, "signature")
        try reader.expectEnd()
    }

    func verify(_ message: [UInt8], subjectPublicKeyInfo: [UInt8]) -> Bool {
        guard hashAlgorithm == Self.sha256, signatureAlgorithm == Self.ecdsa || signatureAlgorithm == Self.rsa else {
            return false
        }
        return SignedListSignature.verify(message: message, signature: signature, subjectPublicKeyInfo: subjectPublicKeyInfo)
    }
}
