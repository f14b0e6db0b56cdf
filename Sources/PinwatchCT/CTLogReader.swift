import Foundation
import PinwatchTransfer

/// One entry as a log serves it, before it is verified: RFC 6962's
/// `leaf_input` (the MerkleTreeLeaf) and `extra_data`. A static-ct-api log
/// names the issuers by fingerprint instead: `extraData` then holds an
/// empty chain and `issuerFingerprints` the SHA-256 of each issuer, read
/// only for the entries a follower keeps.
package struct CTRawEntry: Sendable, Equatable {
    package var leafInput: [UInt8]
    package var extraData: [UInt8]
    package var issuerFingerprints: [[UInt8]]

    package init(leafInput: [UInt8], extraData: [UInt8], issuerFingerprints: [[UInt8]] = []) {
        self.leafInput = leafInput
        self.extraData = extraData
        self.issuerFingerprints = issuerFingerprints
    }
}

/// How a follower reads one log: RFC 6962's API (`RFC6962Client`) or
/// static-ct-api's tiles (`StaticCTClient`). Nothing a reader returns is
/// trusted; the follower verifies signatures, proofs and roots.
package protocol CTLogReader: Sendable {
    /// The most entries one `entries` call is asked for.
    var batchSize: UInt64 { get }
    func treeHead() throws(CTLogError) -> SignedTreeHead
    /// RFC 6962 §2.1.2's PROOF(first, D[second]), which the follower checks.
    func consistencyProof(first: UInt64, second: UInt64) throws(CTLogError) -> [[UInt8]]
    /// Entries from `start` on, at most `end - start + 1` and at least one,
    /// of the tree of `treeSize` entries (whose head is verified).
    func entries(start: UInt64, end: UInt64, treeSize: UInt64) throws(CTLogError) -> [CTRawEntry]
    /// The issuers of a kept entry, by fingerprint, each checked to hash to it.
    func issuers(_ fingerprints: [[UInt8]]) throws(CTLogError) -> [[UInt8]]
}

/// One GET of a log's, with the bounds and errors every reader shares:
/// no redirects, `limit` bytes at most (gzip unpacked by libcurl and
/// bounded after unpacking), `timeout` seconds.
enum CTFetch {
    enum Answer {
        case body([UInt8])
        /// 404: for a static-ct-api log, what it must serve and does not.
        case notFound
    }

    static func get(
        _ url: URL, what: String, limit: Int, timeout: TimeInterval, accept: String = "application/json"
    ) throws(CTLogError) -> Answer {
        switch BoundedTransfer(limit: limit, accept: accept, threadName: "pinwatch-ct").fetch(url, timeout: timeout) {
        case .answered(let body, let status):
            if status == 404 { return .notFound }
            guard status == 200 else { throw .httpStatus(status, what: what) }
            return .body([UInt8](body))
        case .tooLarge: throw .tooLarge(what: what, limit: limit)
        case .timedOut: throw .timedOut(what: what)
        case .redirected(let location): throw .transfer("\(what): redirected to \(location), which a log must not do")
        case .failed(let why): throw .transfer("\(what): \(why)")
        }
    }
}
