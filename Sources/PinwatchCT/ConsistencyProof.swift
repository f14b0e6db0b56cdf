/// RFC 9162 §2.1.4.2: does a tree of `first` leaves with root `firstRoot`
/// stay the prefix of the tree of `second` leaves with root `secondRoot`,
/// by the log's consistency proof?
///
/// The hashes the proof combines on the left are the old tree's right
/// border, so a proof that verifies also hands over the old tree's
/// compact range: a follower that started at the log's size of the day,
/// without its history, can fold the next entries in from there.
package enum ConsistencyProof {
    package enum Failure: Error, Equatable, CustomStringConvertible {
        case shrank(from: UInt64, to: UInt64)
        case sameSizeOtherRoot(UInt64)
        case malformed(String)
        case rootsDisagree(first: UInt64, second: UInt64)

        package var description: String {
            switch self {
            case .shrank(let from, let to): "the tree shrank from \(from) to \(to) entries"
            case .sameSizeOtherRoot(let size): "two different roots for the same size \(size)"
            case .malformed(let why): "the consistency proof is malformed: \(why)"
            case .rootsDisagree(let first, let second):
                "the consistency proof from \(first) to \(second) entries does not lead to both signed roots"
            }
        }
    }

    /// Returns the old tree's compact range, or `nil` when `first` is 0
    /// (nothing to prove, and the empty range is known) or equals `second`.
    @discardableResult
    package static func verify(
        first: UInt64, firstRoot: [UInt8], second: UInt64, secondRoot: [UInt8], proof: [[UInt8]]
    ) throws(Failure) -> CompactRange? {
        guard first <= second else { throw .shrank(from: first, to: second) }
        guard proof.allSatisfy({ $0.count == MerkleHash.size }) else { throw .malformed("a hash is not 32 bytes") }
        if first == second {
            guard proof.isEmpty else { throw .malformed("a proof between equal sizes must be empty") }
            guard firstRoot == secondRoot else { throw .sameSizeOtherRoot(first) }
            return nil
        }
        if first == 0 {
            guard proof.isEmpty else { throw .malformed("a proof from the empty tree must be empty") }
            return .empty
        }
        guard !proof.isEmpty else { throw .malformed("no hashes") }
        // A proof is at most two hashes per level of the larger tree.
        guard proof.count <= 2 * 64 else { throw .malformed("\(proof.count) hashes") }

        var path = proof
        if first.nonzeroBitCount == 1 { path.insert(firstRoot, at: 0) }
        var fn = first - 1
        var sn = second - 1
        while fn & 1 == 1 {
            fn >>= 1
            sn >>= 1
        }
        var fr = path[0]
        var sr = path[0]
        // The old tree's border, smallest subtree first.
        var border: [[UInt8]] = [path[0]]
        for hash in path.dropFirst() {
            guard sn != 0 else { throw .malformed("more hashes than the tree sizes allow") }
            if fn & 1 == 1 || fn == sn {
                fr = MerkleHash.node(hash, fr)
                sr = MerkleHash.node(hash, sr)
                border.append(hash)
                if fn & 1 == 0 {
                    while fn & 1 == 0, fn != 0 {
                        fn >>= 1
                        sn >>= 1
                    }
                }
            } else {
                sr = MerkleHash.node(sr, hash)
            }
            fn >>= 1
            sn >>= 1
        }
        guard sn == 0 else { throw .malformed("fewer hashes than the tree sizes need") }
        guard fr == firstRoot, sr == secondRoot else { throw .rootsDisagree(first: first, second: second) }
        guard let range = CompactRange(size: first, hashes: border.reversed()), range.root == firstRoot else {
            throw .rootsDisagree(first: first, second: second)
        }
        return range
    }
}
