import PinwatchCT
import PinwatchLocalWorld
import XCTest

/// The client's Merkle checks (a compact range, RFC 9162's consistency
/// verification) against the published RFC 6962 test vectors and against
/// the local log's tree, built from RFC 6962's recursive definitions.
final class MerkleVerificationTests: XCTestCase {
    /// The eight leaves of the certificate-transparency reference tests.
    private let leaves: [[UInt8]] = [
        [], [0x00], [0x10], [0x20, 0x21], [0x30, 0x31], [0x40, 0x41, 0x42, 0x43],
        [0x50, 0x51, 0x52, 0x53, 0x54, 0x55, 0x56, 0x57], Array(0x60...0x6f),
    ]
    /// The roots of the first 1…8 of those leaves.
    private let roots = [
        "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
        "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
        "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
        "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
        "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
        "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
        "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
    ]

    func testCompactRangeGivesTheReferenceRoots() {
        var range = CompactRange.empty
        XCTAssertEqual(hex(range.root), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        for (index, leaf) in leaves.enumerated() {
            range.append(leafHash: MerkleHash.leaf(leaf))
            XCTAssertEqual(hex(range.root), roots[index], "root of \(index + 1) leaves")
        }
    }

    func testReferenceConsistencyProofsVerify() throws {
        let proofs: [(Int, Int, [String])] = [
            (
                1, 8,
                [
                    "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
                    "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
                    "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
                ]
            ),
            (
                6, 8,
                [
                    "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
                    "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
                    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
                ]
            ),
            (
                2, 5,
                [
                    "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
                    "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
                ]
            ),
        ]
        for (first, second, proof) in proofs {
            let range = try ConsistencyProof.verify(
                first: UInt64(first), firstRoot: bytes(roots[first - 1]), second: UInt64(second),
                secondRoot: bytes(roots[second - 1]), proof: proof.map(bytes))
            XCTAssertEqual(range.map { hex($0.root) }, roots[first - 1], "\(first) → \(second)")
            // One changed hash anywhere and the proof fails.
            for index in proof.indices {
                var damaged = proof.map(bytes)
                damaged[index][0] ^= 1
                XCTAssertThrowsError(
                    try ConsistencyProof.verify(
                        first: UInt64(first), firstRoot: bytes(roots[first - 1]), second: UInt64(second),
                        secondRoot: bytes(roots[second - 1]), proof: damaged))
            }
        }
    }

    /// Every pair of sizes up to 40 leaves: the recursive tree's proofs
    /// verify, hand over the old tree's compact range (which then folds the
    /// new leaves into the new root), and fail against a different root.
    func testEveryProofOfTheRecursiveTreeVerifiesAndHandsOverTheRange() throws {
        var tree = LocalMerkleTree()
        for index in 0..<40 { tree.append(leafInput: Array("leaf \(index)".utf8)) }
        for second in 1...40 {
            let secondRoot = tree.root(0..<second)
            for first in 1..<second {
                let firstRoot = tree.root(0..<first)
                let proof = tree.consistency(from: first, to: second)
                let handed = try ConsistencyProof.verify(
                    first: UInt64(first), firstRoot: firstRoot, second: UInt64(second), secondRoot: secondRoot, proof: proof)
                var range = try XCTUnwrap(handed, "\(first) → \(second)")
                XCTAssertEqual(range.size, UInt64(first))
                for index in first..<second { range.append(leafHash: tree.leafHashes[index]) }
                XCTAssertEqual(range.root, secondRoot, "\(first) → \(second)")
                XCTAssertThrowsError(
                    try ConsistencyProof.verify(
                        first: UInt64(first), firstRoot: tree.root(1..<(first + 1)), second: UInt64(second),
                        secondRoot: secondRoot, proof: proof))
                if !proof.isEmpty {
                    XCTAssertThrowsError(
                        try ConsistencyProof.verify(
                            first: UInt64(first), firstRoot: firstRoot, second: UInt64(second), secondRoot: secondRoot,
                            proof: Array(proof.dropLast())))
                }
            }
        }
    }

    func testShrinkingAndSameSizeWithAnotherRootAreRefused() {
        let root = bytes(roots[3])
        XCTAssertThrowsError(try ConsistencyProof.verify(first: 4, firstRoot: root, second: 3, secondRoot: root, proof: [])) {
            XCTAssertEqual($0 as? ConsistencyProof.Failure, .shrank(from: 4, to: 3))
        }
        XCTAssertThrowsError(
            try ConsistencyProof.verify(first: 4, firstRoot: root, second: 4, secondRoot: bytes(roots[4]), proof: [])
        ) {
            XCTAssertEqual($0 as? ConsistencyProof.Failure, .sameSizeOtherRoot(4))
        }
    }

    private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    private func bytes(_ hex: String) -> [UInt8] {
        var result: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            result.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return result
    }
}
