import PinwatchCore

extension VerifiedLogPosition {
    /// The position a stored record holds; nil for a record whose range
    /// does not fit its size or whose root is not 32 bytes (the log then
    /// starts again at its size of the day).
    package init?(_ record: CTLogPositionRecord) {
        guard record.rootHash.count == MerkleHash.size else { return nil }
        var range: CompactRange?
        if let hashes = record.range {
            guard let stored = CompactRange(size: record.treeSize, hashes: hashes), stored.root == record.rootHash else { return nil }
            range = stored
        }
        self.init(treeSize: record.treeSize, rootHash: record.rootHash, timestamp: record.timestamp, range: range)
    }

    package func record(logID: [UInt8]) -> CTLogPositionRecord {
        CTLogPositionRecord(logID: logID, treeSize: treeSize, rootHash: rootHash, timestamp: timestamp, range: range?.hashes)
    }
}
