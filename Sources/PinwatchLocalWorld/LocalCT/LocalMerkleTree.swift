import PinwatchProbe

/// The local log's Merkle tree, computed straight from RFC 6962 §2.1's
/// recursive definitions (MTH, PROOF, SUBPROOF). The client verifies with
/// RFC 9162's iterative algorithm and a compact range instead, so the two
/// sides share no Merkle code that a common mistake could hide in.
package struct LocalMerkleTree {
    package private(set) var leafHashes: [[UInt8]] = []

    package init() {}

    package var size: Int { leafHashes.count }

    package mutating func append(leafInput: [UInt8]) {
        leafHashes.append(Self.leafHash(leafInput))
    }

    mutating func replace(at index: Int, leafInput: [UInt8]) {
        leafHashes[index] = Self.leafHash(leafInput)
    }

    static func leafHash(_ input: [UInt8]) -> [UInt8] { SHA256Digest.of([0] + input) }

    /// MTH(D[range]).
    package func root(_ range: Range<Int>) -> [UInt8] {
        switch range.count {
        case 0: return SHA256Digest.of([])
        case 1: return leafHashes[range.lowerBound]
        default:
            let k = Self.largestPowerOfTwo(below: range.count)
            let left = root(range.lowerBound..<(range.lowerBound + k))
            let right = root((range.lowerBound + k)..<range.upperBound)
            return SHA256Digest.of([1] + left + right)
        }
    }

    /// PROOF(m, D[n]): the consistency proof from the first `m` leaves to
    /// the first `n`.
    package func consistency(from m: Int, to n: Int) -> [[UInt8]] {
        guard m > 0, m < n, n <= size else { return [] }
        return subproof(m, 0..<n, complete: true)
    }

    private func subproof(_ m: Int, _ range: Range<Int>, complete: Bool) -> [[UInt8]] {
        let n = range.count
        if m == n { return complete ? [] : [root(range)] }
        let k = Self.largestPowerOfTwo(below: n)
        let split = range.lowerBound + k
        if m <= k {
            return subproof(m, range.lowerBound..<split, complete: complete) + [root(split..<range.upperBound)]
        }
        return subproof(m - k, split..<range.upperBound, complete: false) + [root(range.lowerBound..<split)]
    }

    /// The largest power of two smaller than `n` (n > 1).
    static func largestPowerOfTwo(below n: Int) -> Int {
        var k = 1
        while k << 1 < n { k <<= 1 }
        return k
    }
}
