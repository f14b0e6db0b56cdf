import Foundation
import PinwatchProbe

/// Where a follower stands in a log: the last tree it verified, and the
/// compact range to fold the next entries into (nil until a consistency
/// proof has handed it over, for a follower that started at a log's size
/// of the day instead of downloading its history).
package struct VerifiedLogPosition: Sendable, Equatable {
    package var treeSize: UInt64
    package var rootHash: [UInt8]
    /// The verified tree head's timestamp, milliseconds since the epoch.
    package var timestamp: UInt64
    package var range: CompactRange?

    package init(treeSize: UInt64, rootHash: [UInt8], timestamp: UInt64, range: CompactRange?) {
        self.treeSize = treeSize
        self.rootHash = rootHash
        self.timestamp = timestamp
        self.range = range
    }

    /// The empty tree: a follower that reads the log from its first entry.
    package static let beginning = VerifiedLogPosition(treeSize: 0, rootHash: MerkleHash.emptyRoot, timestamp: 0, range: .empty)
}

/// What one step of following brought: a verified tree and the entries
/// that joined it since the last one that the caller kept.
package struct CTAdvance: Sendable {
    package let position: VerifiedLogPosition
    package let entries: [CTLogEntry]
    /// Entries that hashed into the tree but do not parse as RFC 6962 says
    /// (or whose precertificate is not the one logged): counted, never acted on.
    package let unreadable: [UInt64]
}

/// Follows one RFC 6962 log: each step reads the log's tree head, checks its
/// signature with the key from the log list and its consistency with the
/// last verified tree, reads the entries in between, and hands them over
/// only once their hashes have built the signed root. A log that fails any
/// check yields the typed error and no entries; the position stays where
/// it was, so the next step checks the next tree against the same one.
package final class CTLogFollower {
    package let log: CTLogDescription
    private let client: RFC6962Client
    package private(set) var position: VerifiedLogPosition?

    /// `position` nil starts where the log is at the first step, without
    /// its history.
    package init(log: CTLogDescription, client: RFC6962Client, position: VerifiedLogPosition?) {
        self.log = log
        self.client = client
        self.position = position
    }

    /// `keep` decides, entry by entry as they arrive, which are returned:
    /// memory holds only those and the compact range, whatever the gap.
    package func advance(keeping keep: (CTLogEntry) -> Bool = { _ in true }) throws(CTLogError) -> CTAdvance {
        let head = try client.treeHead()
        guard head.isSigned(byKey: log.key) else { throw .badSignature(treeSize: head.treeSize) }
        guard let current = position else {
            let start = VerifiedLogPosition(treeSize: head.treeSize, rootHash: head.rootHash, timestamp: head.timestamp, range: nil)
            position = start
            return CTAdvance(position: start, entries: [], unreadable: [])
        }
        var range = current.range
        var proof: [[UInt8]] = []
        if current.treeSize > 0, current.treeSize < head.treeSize {
            proof = try client.consistencyProof(first: current.treeSize, second: head.treeSize)
        }
        do {
            let proven = try ConsistencyProof.verify(
                first: current.treeSize, firstRoot: current.rootHash, second: head.treeSize, secondRoot: head.rootHash, proof: proof)
            if range == nil { range = proven }
        } catch {
            throw .inconsistent(error.description)
        }
        guard head.treeSize > current.treeSize, var range else {
            let same = VerifiedLogPosition(
                treeSize: current.treeSize, rootHash: current.rootHash, timestamp: max(current.timestamp, head.timestamp),
                range: current.range)
            position = same
            return CTAdvance(position: same, entries: [], unreadable: [])
        }
        var kept: [CTLogEntry] = []
        var unreadable: [UInt64] = []
        var next = current.treeSize
        while next < head.treeSize {
            let last = min(head.treeSize - 1, next + client.limits.batchSize - 1)
            let batch = try client.entries(start: next, end: last)
            for raw in batch {
                let leafHash = MerkleHash.leaf(raw.leafInput)
                range.append(leafHash: leafHash)
                if let entry = Self.readable(index: next, raw.leafInput, raw.extraData, leafHash: leafHash) {
                    if keep(entry) { kept.append(entry) }
                } else {
                    unreadable.append(next)
                }
                next += 1
            }
        }
        guard range.root == head.rootHash else { throw .entriesNotInTree(from: current.treeSize, to: head.treeSize) }
        let verified = VerifiedLogPosition(treeSize: head.treeSize, rootHash: head.rootHash, timestamp: head.timestamp, range: range)
        position = verified
        return CTAdvance(position: verified, entries: kept, unreadable: unreadable)
    }

    private static func readable(index: UInt64, _ leafInput: [UInt8], _ extraData: [UInt8], leafHash: [UInt8]) -> CTLogEntry? {
        guard let entry = try? CTLogEntry(index: index, leafInput: leafInput, extraData: extraData, leafHash: leafHash) else {
            return nil
        }
        if case .precertificate(_, let tbs, let precertificate) = entry.kind {
            guard PrecertificateTBS.withoutPoison(precertificate) == tbs else { return nil }
        }
        return entry
    }
}
