import PinwatchProbe

/// RFC 6962 §2.1's hashes: a leaf is SHA-256(0x00 ‖ leaf), an inner node
/// SHA-256(0x01 ‖ left ‖ right); the prefixes keep a leaf from passing for
/// a node.
package enum MerkleHash {
    package static let size = 32

    package static func leaf(_ input: [UInt8]) -> [UInt8] {
        SHA256Digest.of([0x00] + input)
    }

    package static func node(_ left: [UInt8], _ right: [UInt8]) -> [UInt8] {
        SHA256Digest.of([0x01] + left + right)
    }

    /// The root of the empty tree: SHA-256 of nothing.
    package static let emptyRoot: [UInt8] = SHA256Digest.of([])
}

/// The roots of the perfect subtrees a tree of `size` leaves splits into,
/// largest (leftmost) first — all a follower keeps of a log's tree to fold
/// new leaves in and compute the next root, whatever the log's size
/// (RFC 9162 §2.1.1's MTH over a prefix, kept as its right border).
package struct CompactRange: Sendable, Equatable {
    package private(set) var size: UInt64
    /// One hash per set bit of `size`, from the highest bit down.
    package private(set) var hashes: [[UInt8]]

    package static let empty = CompactRange(checkedSize: 0, hashes: [])

    /// `nil` unless there is one hash of the right length per set bit of `size`.
    package init?(size: UInt64, hashes: [[UInt8]]) {
        guard size.nonzeroBitCount == hashes.count, hashes.allSatisfy({ $0.count == MerkleHash.size }) else { return nil }
        self.init(checkedSize: size, hashes: hashes)
    }

    private init(checkedSize: UInt64, hashes: [[UInt8]]) {
        self.size = checkedSize
        self.hashes = hashes
    }

    package mutating func append(leafHash: [UInt8]) {
        var carry = leafHash
        // Each trailing set bit of the old size is a subtree of the same
        // height as the carry: merge them, smallest first.
        var bits = size
        while bits & 1 == 1 {
            carry = MerkleHash.node(hashes.removeLast(), carry)
            bits >>= 1
        }
        hashes.append(carry)
        size += 1
    }

    package var root: [UInt8] {
        guard var folded = hashes.last else { return MerkleHash.emptyRoot }
        for hash in hashes.dropLast().reversed() {
            folded = MerkleHash.node(hash, folded)
        }
        return folded
    }
}
