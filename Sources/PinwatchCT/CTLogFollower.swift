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
    /// Entries that hashed into the tree but do not parse as RFC 6962 says,
    /// and entries `keep` chose whose precertificate is not the one logged
    /// (checked only for those: re-encoding every precertificate of a log
    /// would cost more than reading it): counted, never acted on.
    package let unreadable: [UInt64]
    /// While a tree larger than one step's budget is read: the entries read
    /// towards it so far and its size. Nil once the step reached a verified tree.
    package let catchingUp: (read: UInt64, of: UInt64)?

    init(
        position: VerifiedLogPosition, entries: [CTLogEntry] = [], unreadable: [UInt64] = [],
        catchingUp: (read: UInt64, of: UInt64)? = nil
    ) {
        self.position = position
        self.entries = entries
        self.unreadable = unreadable
        self.catchingUp = catchingUp
    }
}

/// A tree whose head is verified (signature, consistency) and whose
/// entries are being read over several steps: nothing of it is handed
/// over before they all hash to its root.
struct CTCatchUp {
    let head: SignedTreeHead
    /// The verified tree it starts from.
    let from: UInt64
    var range: CompactRange
    var next: UInt64
    var kept: [CTLogEntry] = []
    var unreadable: [UInt64] = []
}

/// Follows one log, through RFC 6962's API or static-ct-api's tiles: each step reads the log's tree head, checks its
/// signature with the key from the log list and its consistency with the
/// last verified tree, reads the entries in between, and hands them over
/// only once their hashes have built the signed root. A log that fails any
/// check yields the typed error and no entries; the position stays where
/// it was, so the next step checks the next tree against the same one.
///
/// A step reads at most `budget` entries: a larger gap is read over several
/// steps towards the same verified head, keeping only the compact range and
/// the entries `keep` chose, and handed over when the last one is read. A
/// step that fails on the road (time, network) resumes where it stopped;
/// entries that do not build the root drop the catch-up.
package final class CTLogFollower {
    package let log: CTLogDescription
    private let client: any CTLogReader
    package private(set) var position: VerifiedLogPosition?
    private var catchUp: CTCatchUp?

    /// `position` nil starts where the log is at the first step, without
    /// its history.
    package init(log: CTLogDescription, client: any CTLogReader, position: VerifiedLogPosition?) {
        self.log = log
        self.client = client
        self.position = position
    }

    /// `keep` decides, entry by entry as they arrive, which are returned:
    /// memory holds only those and the compact range, whatever the gap.
    package func advance(
        keeping keep: (CTLogEntry) -> Bool = { _ in true }, budget: UInt64 = .max
    ) throws(CTLogError) -> CTAdvance {
        guard let current = position else {
            let head = try verifiedHead()
            let start = VerifiedLogPosition(treeSize: head.treeSize, rootHash: head.rootHash, timestamp: head.timestamp, range: nil)
            position = start
            return CTAdvance(position: start)
        }
        if catchUp == nil {
            let head = try verifiedHead()
            guard let started = try start(towards: head, from: current) else {
                let same = VerifiedLogPosition(
                    treeSize: current.treeSize, rootHash: current.rootHash, timestamp: max(current.timestamp, head.timestamp),
                    range: current.range)
                position = same
                return CTAdvance(position: same)
            }
            catchUp = started
        }
        guard var reading = catchUp else { return CTAdvance(position: current) }
        var read: UInt64 = 0
        defer { if catchUp != nil { catchUp = reading } }
        while reading.next < reading.head.treeSize, read < budget {
            let wanted = min(reading.head.treeSize - reading.next, client.batchSize, budget - read)
            let batch = try client.entries(start: reading.next, end: reading.next + wanted - 1, treeSize: reading.head.treeSize)
            for raw in batch.prefix(Int(wanted)) {
                let leafHash = MerkleHash.leaf(raw.leafInput)
                // Whatever throws here (an issuer not read) leaves the entry
                // unread, to be read again from the same place.
                let outcome = try Self.read(raw, index: reading.next, leafHash: leafHash, keep: keep, client: client)
                reading.range.append(leafHash: leafHash)
                switch outcome {
                case .kept(let entry): reading.kept.append(entry)
                case .unreadable: reading.unreadable.append(reading.next)
                case .skipped: break
                }
                reading.next += 1
                read += 1
            }
        }
        guard reading.next == reading.head.treeSize else {
            return CTAdvance(
                position: current, catchingUp: (read: reading.next - reading.from, of: reading.head.treeSize - reading.from))
        }
        catchUp = nil
        guard reading.range.root == reading.head.rootHash else {
            throw .entriesNotInTree(from: reading.from, to: reading.head.treeSize)
        }
        let verified = VerifiedLogPosition(
            treeSize: reading.head.treeSize, rootHash: reading.head.rootHash, timestamp: reading.head.timestamp, range: reading.range)
        position = verified
        return CTAdvance(position: verified, entries: reading.kept, unreadable: reading.unreadable)
    }

    private func verifiedHead() throws(CTLogError) -> SignedTreeHead {
        let head = try client.treeHead()
        guard head.isSigned(byKey: log.key) else { throw .badSignature(treeSize: head.treeSize) }
        return head
    }

    /// The catch-up towards `head` once it is proven to extend `current`;
    /// nil when it is the same tree.
    private func start(towards head: SignedTreeHead, from current: VerifiedLogPosition) throws(CTLogError) -> CTCatchUp? {
        var proof: [[UInt8]] = []
        if current.treeSize > 0, current.treeSize < head.treeSize {
            proof = try client.consistencyProof(first: current.treeSize, second: head.treeSize)
        }
        var range = current.range
        do {
            let proven = try ConsistencyProof.verify(
                first: current.treeSize, firstRoot: current.rootHash, second: head.treeSize, secondRoot: head.rootHash, proof: proof)
            if range == nil { range = proven }
        } catch {
            throw .inconsistent(error.description)
        }
        guard head.treeSize > current.treeSize, let range else { return nil }
        return CTCatchUp(head: head, from: current.treeSize, range: range, next: current.treeSize)
    }

    private enum Outcome {
        case kept(CTLogEntry)
        case unreadable
        case skipped
    }

    /// An entry parsed, chosen by `keep`, its issuers read when the log
    /// names them by fingerprint, and its precertificate checked.
    private static func read(
        _ raw: CTRawEntry, index: UInt64, leafHash: [UInt8], keep: (CTLogEntry) -> Bool, client: any CTLogReader
    ) throws(CTLogError) -> Outcome {
        guard var entry = try? CTLogEntry(index: index, leafInput: raw.leafInput, extraData: raw.extraData, leafHash: leafHash) else {
            return .unreadable
        }
        guard keep(entry) else { return .skipped }
        if !raw.issuerFingerprints.isEmpty { entry.chain = try client.issuers(raw.issuerFingerprints) }
        return precertificateMatches(entry) ? .kept(entry) : .unreadable
    }

    /// For a precertificate entry: whether the precertificate submitted is
    /// the one whose TBSCertificate the tree holds.
    private static func precertificateMatches(_ entry: CTLogEntry) -> Bool {
        guard case .precertificate(_, let tbs, let precertificate) = entry.kind else { return true }
        return PrecertificateTBS.withoutPoison(precertificate) == tbs
    }
}
