import Foundation
import PinwatchCore
import PinwatchProbe

/// A static-ct-api log's tree head: a checkpoint (c2sp.org/tlog-checkpoint),
/// a signed note whose log signature is an RFC6962NoteSignature (the tree
/// head's timestamp, then RFC 6962's TreeHeadSignature). The tree head it
/// yields is verified as a `get-sth` answer's is.
package enum Checkpoint {
    /// A checkpoint is a few hundred bytes; witnesses add a line each.
    package static let maximumSize = 16 << 10

    /// The origin line of a log whose submission prefix is `url`: the URL
    /// without its scheme and trailing slashes.
    package static func origin(ofSubmissionURL url: URL) -> String {
        var text = url.absoluteString
        if let scheme = text.range(of: "://") { text = String(text[scheme.upperBound...]) }
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }

    /// The note key ID of the log's RFC6962NoteSignature: the first four
    /// bytes of SHA-256(name ‖ 0x0A ‖ 0x05 ‖ log id).
    package static func keyID(name: String, logID: [UInt8]) -> [UInt8] {
        Array(SHA256Digest.of(Array(name.utf8) + [0x0A, 0x05] + logID).prefix(4))
    }

    /// The tree head `text` carries, read from the log's own signature line
    /// (its key name is `origin`, its key ID the log's); other signatures
    /// (witnesses) are ignored. The signature is not checked here:
    /// `SignedTreeHead.isSigned(byKey:)` does, with the log list's key.
    package static func treeHead(_ text: [UInt8], origin: String, logID: [UInt8]) throws(CTFormatError) -> SignedTreeHead {
        guard text.count <= maximumSize else { throw CTFormatError("checkpoint: more than \(maximumSize) bytes") }
        guard let note = String(bytes: text, encoding: .utf8), let split = note.range(of: "\n\n") else {
            throw CTFormatError("checkpoint: not a signed note (UTF-8 text, a blank line before the signatures)")
        }
        let body = note[..<split.lowerBound].split(separator: "\n", omittingEmptySubsequences: false)
        guard body.count == 3 else {
            throw CTFormatError("checkpoint: \(body.count) lines before the signatures, where an RFC 6962 log writes 3")
        }
        guard body[0] == origin else {
            throw CTFormatError("checkpoint: origin \(EchoedInput.quoted(String(body[0]))), not the log's \(origin)")
        }
        guard let size = UInt64(body[1]), String(size) == body[1] else {
            throw CTFormatError("checkpoint: the tree size is not a decimal number")
        }
        guard let root = Data(base64Encoded: String(body[2])), root.count == MerkleHash.size else {
            throw CTFormatError("checkpoint: the root hash is not 32 bytes of base64")
        }
        let wanted = keyID(name: origin, logID: logID)
        for line in note[split.upperBound...].split(separator: "\n") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: false)
            guard parts.count == 3, parts[0] == "\u{2014}", parts[1] == origin, let signature = Data(base64Encoded: String(parts[2])),
                signature.count > 12, Array(signature.prefix(4)) == wanted
            else { continue }
            let bytes = [UInt8](signature)
            var timestamp: UInt64 = 0
            for byte in bytes[4..<12] { timestamp = timestamp << 8 | UInt64(byte) }
            return SignedTreeHead(treeSize: size, timestamp: timestamp, rootHash: [UInt8](root), signature: Array(bytes[12...]))
        }
        throw CTFormatError("checkpoint: no signature line by the log (key name \(origin), its key ID)")
    }
}
