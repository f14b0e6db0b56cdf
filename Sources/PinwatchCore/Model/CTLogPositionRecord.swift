/// Where a Certificate Transparency log was verified to, as the history
/// store keeps it between runs: a follower resumes from it instead of
/// reading the log's history.
package struct CTLogPositionRecord: Hashable, Sendable {
    /// SHA-256 of the log's key (its `log_id`).
    package var logID: [UInt8]
    package var treeSize: UInt64
    package var rootHash: [UInt8]
    /// The verified tree head's timestamp, milliseconds since the epoch.
    package var timestamp: UInt64
    /// The hashes of the tree's compact range, largest subtree first; nil
    /// until a consistency proof has handed them over.
    package var range: [[UInt8]]?

    package init(logID: [UInt8], treeSize: UInt64, rootHash: [UInt8], timestamp: UInt64, range: [[UInt8]]?) {
        self.logID = logID
        self.treeSize = treeSize
        self.rootHash = rootHash
        self.timestamp = timestamp
        self.range = range
    }
}
