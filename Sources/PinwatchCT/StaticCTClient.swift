import Foundation
import PinwatchProbe

/// A static-ct-api log's read path (c2sp.org/static-ct-api, tiles as
/// c2sp.org/tlog-tiles lays them out) under its monitoring prefix, through
/// libcurl with the bounds `RFC6962Client.Limits` sets: the checkpoint,
/// hash tiles (a consistency proof is computed from them, so hash tiles
/// that do not hash to both signed roots fail the follower's proof check),
/// data tiles (their leaves must build the signed root, as `get-entries`'
/// do) and issuers, each checked to hash to its fingerprint. Gzip, which a
/// log may send without being asked, is unpacked by libcurl and bounded
/// after unpacking.
///
/// A log must serve every tile a checkpoint it signed needs and every
/// issuer its entries name: a 404 for one, or for the checkpoint, is the
/// log's misbehaviour. A partial tile may have been replaced by its full
/// tile (the spec lets the log delete it): then the full one is read.
package struct StaticCTClient: CTLogReader {
    package let monitoringURL: URL
    /// The checkpoint's origin: the submission prefix without its scheme.
    package let origin: String
    package let logID: [UInt8]
    package let limits: RFC6962Client.Limits
    private let issuerCache: IssuerCache

    /// Every tile holds 256 hashes or entries (its last one may hold fewer).
    package static let tileWidth: UInt64 = 256
    /// A full hash tile: 256 hashes of 32 bytes.
    private static let hashTileSize = Int(tileWidth) * MerkleHash.size
    /// An issuer is one certificate.
    private static let issuerSize = 64 << 10

    package init(log: CTLogDescription, submissionURL: URL, monitoringURL: URL, limits: RFC6962Client.Limits = .init()) {
        self.monitoringURL = monitoringURL
        origin = Checkpoint.origin(ofSubmissionURL: submissionURL)
        logID = log.logID
        self.limits = limits
        issuerCache = IssuerCache()
    }

    package var batchSize: UInt64 { Self.tileWidth }

    package func treeHead() throws(CTLogError) -> SignedTreeHead {
        guard let body = try fetch("checkpoint", limit: Checkpoint.maximumSize, accept: "text/plain") else {
            throw .malformed("checkpoint: the log serves none (HTTP 404)")
        }
        do {
            return try Checkpoint.treeHead(body, origin: origin, logID: logID)
        } catch {
            throw .malformed(error.description)
        }
    }

    /// PROOF(first, D[second]) of RFC 6962 §2.1.2, each hash computed from
    /// the hash tiles of the tree of `second` entries.
    package func consistencyProof(first: UInt64, second: UInt64) throws(CTLogError) -> [[UInt8]] {
        guard first > 0, first < second else { return [] }
        var tiles = HashTiles(client: self, treeSize: second)
        return try tiles.subproof(first, 0, second, complete: true)
    }

    package func entries(start: UInt64, end: UInt64, treeSize: UInt64) throws(CTLogError) -> [CTRawEntry] {
        guard start <= end, end < treeSize else { throw .malformed("data tile: entries \(start)...\(end) of a tree of \(treeSize)") }
        let index = start / Self.tileWidth
        let width = min(Self.tileWidth, treeSize - index * Self.tileWidth)
        let (body, full) = try tile("data", index: index, width: width, limit: limits.entriesAnswer)
        let leaves: [CTRawEntry]
        do {
            leaves = try Self.tileLeaves(body, first: index * Self.tileWidth, count: full ? Self.tileWidth : width)
        } catch {
            throw .malformed(error.description)
        }
        let from = Int(start - index * Self.tileWidth)
        let to = Int(min(end - index * Self.tileWidth, width - 1))
        return Array(leaves[from...to])
    }

    package func issuers(_ fingerprints: [[UInt8]]) throws(CTLogError) -> [[UInt8]] {
        var chain: [[UInt8]] = []
        for fingerprint in fingerprints {
            if let known = issuerCache.issuer(fingerprint) {
                chain.append(known)
                continue
            }
            let hex = fingerprint.map { String(format: "%02x", $0) }.joined()
            guard let der = try fetch("issuer/\(hex)", limit: Self.issuerSize, accept: "application/pkix-cert") else {
                throw .malformed("issuer/\(hex): the log serves no issuer its entries name (HTTP 404)")
            }
            guard SHA256Digest.of(der) == fingerprint else {
                throw .malformed("issuer/\(hex): the certificate served does not hash to its fingerprint")
            }
            issuerCache.store(der, for: fingerprint)
            chain.append(der)
        }
        return chain
    }

    /// A tile's bytes: `tile/<kind>/<N>[.p/<W>]`, the full tile in place of
    /// a partial one the log no longer serves.
    func tile(_ kind: String, index: UInt64, width: UInt64, limit: Int) throws(CTLogError) -> (bytes: [UInt8], full: Bool) {
        let path = "tile/\(kind)/\(Self.indexPath(index))"
        if width < Self.tileWidth, let partial = try fetch(path + ".p/\(width)", limit: limit, accept: "application/octet-stream") {
            return (partial, false)
        }
        guard let full = try fetch(path, limit: limit, accept: "application/octet-stream") else {
            throw .malformed("\(path): the log serves no tile its checkpoint needs (HTTP 404)")
        }
        return (full, true)
    }

    /// `<N>` as tlog-tiles writes it: 3-digit path elements, each but the
    /// last prefixed with `x` (1234067 is `x001/x234/067`).
    package static func indexPath(_ index: UInt64) -> String {
        var groups: [String] = []
        var rest = index
        repeat {
            groups.insert(String(format: "%03d", Int(rest % 1_000)), at: 0)
            rest /= 1_000
        } while rest > 0
        return groups.enumerated().map { $0.offset < groups.count - 1 ? "x" + $0.element : $0.element }.joined(separator: "/")
    }

    /// The TileLeaf structures of a data tile, as the raw entries RFC 6962
    /// would serve (the MerkleTreeLeaf is v1, timestamped_entry, then the
    /// tile's TimestampedEntry), with the issuers' fingerprints.
    static func tileLeaves(_ body: [UInt8], first: UInt64, count: UInt64) throws(CTFormatError) -> [CTRawEntry] {
        var reader = TLSReader(body, what: "data tile from entry \(first)")
        var leaves: [CTRawEntry] = []
        while !reader.isAtEnd {
            let start = reader.position
            _ = try reader.integer(8, "timestamp")
            let entryType = try reader.integer(2, "entry type")
            switch entryType {
            case 0: _ = try reader.vector(lengthWidth: 3, minimum: 1, "certificate")
            case 1:
                _ = try reader.fixed(32, "issuer_key_hash")
                _ = try reader.vector(lengthWidth: 3, minimum: 1, "tbs_certificate")
            default: throw CTFormatError("data tile: entry \(first + UInt64(leaves.count)) has unknown entry type \(entryType)")
            }
            _ = try reader.vector(lengthWidth: 2, "extensions")
            let timestamped = body[start..<reader.position]
            var extra: [UInt8] = []
            if entryType == 1 {
                let precertificate = try reader.vector(lengthWidth: 3, minimum: 1, "pre_certificate")
                extra = TLSWriter.integer(UInt64(precertificate.count), width: 3) + precertificate
            }
            // The chain is filled in from the issuers for the entries kept.
            extra += [0, 0, 0]
            let fingerprints = try reader.vector(lengthWidth: 2, "certificate_chain")
            guard fingerprints.count % MerkleHash.size == 0 else {
                throw CTFormatError("data tile: entry \(first + UInt64(leaves.count))'s chain is not a list of 32-byte fingerprints")
            }
            let chain = stride(from: 0, to: fingerprints.count, by: MerkleHash.size).map {
                Array(fingerprints[$0..<($0 + MerkleHash.size)])
            }
            leaves.append(CTRawEntry(leafInput: [0, 0] + timestamped, extraData: extra, issuerFingerprints: chain))
            guard leaves.count <= count else { break }
        }
        guard leaves.count == count else {
            throw CTFormatError("data tile from entry \(first): \(leaves.count) entries where its width is \(count)")
        }
        return leaves
    }

    /// nil for a 404.
    private func fetch(_ path: String, limit: Int, accept: String) throws(CTLogError) -> [UInt8]? {
        let url = monitoringURL.appendingPathComponent(path)
        switch try CTFetch.get(url, what: "\(url.host ?? "log") \(path)", limit: limit, timeout: limits.timeout, accept: accept) {
        case .body(let body): return body
        case .notFound: return nil
        }
    }

    /// The hash tiles of one tree, read once each while a proof is computed.
    struct HashTiles {
        let client: StaticCTClient
        let treeSize: UInt64
        private var read: [String: [[UInt8]]] = [:]

        init(client: StaticCTClient, treeSize: UInt64) {
            self.client = client
            self.treeSize = treeSize
        }

        /// SUBPROOF(m, D[start..<end], complete) of RFC 6962 §2.1.2.
        mutating func subproof(_ m: UInt64, _ start: UInt64, _ end: UInt64, complete: Bool) throws(CTLogError) -> [[UInt8]] {
            let n = end - start
            if m == n { return complete ? [] : [try hash(start, end)] }
            let k = Self.largestPowerOfTwo(below: n)
            if m <= k {
                return try subproof(m, start, start + k, complete: complete) + [try hash(start + k, end)]
            }
            return try subproof(m - k, start + k, end, complete: false) + [try hash(start, start + k)]
        }

        /// MTH(D[start..<end]) for a range the proof names: aligned on the
        /// largest power of two not above its size.
        mutating func hash(_ start: UInt64, _ end: UInt64) throws(CTLogError) -> [UInt8] {
            let n = end - start
            if n.nonzeroBitCount == 1, start % n == 0 { return try node(height: n.trailingZeroBitCount, index: start / n) }
            let k = Self.largestPowerOfTwo(below: n)
            return MerkleHash.node(try hash(start, start + k), try hash(start + k, end))
        }

        /// The complete subtree of 2^height leaves at `index`: its hash in
        /// a tile when the height is a multiple of 8, else folded from the
        /// tile hashes below it.
        private mutating func node(height: Int, index: UInt64) throws(CTLogError) -> [UInt8] {
            let level = height / 8
            let below = height % 8
            let first = index << UInt64(below)
            let tileIndex = first / StaticCTClient.tileWidth
            let available = (treeSize >> UInt64(8 * level)) - tileIndex * StaticCTClient.tileWidth
            let width = min(StaticCTClient.tileWidth, available)
            var hashes = try tile(level: level, index: tileIndex, width: width)
            let offset = Int(first % StaticCTClient.tileWidth)
            let count = 1 << below
            guard offset + count <= hashes.count else {
                throw .malformed("tile/\(level)/\(StaticCTClient.indexPath(tileIndex)): fewer hashes than the tree needs")
            }
            hashes = Array(hashes[offset..<(offset + count)])
            while hashes.count > 1 {
                hashes = stride(from: 0, to: hashes.count, by: 2).map { MerkleHash.node(hashes[$0], hashes[$0 + 1]) }
            }
            return hashes[0]
        }

        private mutating func tile(level: Int, index: UInt64, width: UInt64) throws(CTLogError) -> [[UInt8]] {
            let key = "\(level)/\(index)/\(width)"
            if let known = read[key] { return known }
            let (body, full) = try client.tile(String(level), index: index, width: width, limit: StaticCTClient.hashTileSize)
            // A full tile read in place of a partial one holds more hashes:
            // the first `width` are the partial tile's.
            let expected = full ? StaticCTClient.hashTileSize : Int(width) * MerkleHash.size
            guard body.count == expected else {
                throw .malformed("tile/\(level)/\(StaticCTClient.indexPath(index)): \(body.count) bytes, not \(width) hashes")
            }
            let hashes = (0..<Int(width)).map { Array(body[($0 * MerkleHash.size)..<(($0 + 1) * MerkleHash.size)]) }
            read[key] = hashes
            return hashes
        }

        /// The largest power of two smaller than `n` (n > 1).
        static func largestPowerOfTwo(below n: UInt64) -> UInt64 {
            var k: UInt64 = 1
            while k << 1 < n { k <<= 1 }
            return k
        }
    }
}

/// Issuers a log has served, by fingerprint: a log names a few dozen, and
/// each is read once. Bounded: past `maximum` the cache starts over.
final class IssuerCache: @unchecked Sendable {
    private let lock = NSLock()
    private var issuers: [[UInt8]: [UInt8]] = [:]
    private static let maximum = 1_024

    func issuer(_ fingerprint: [UInt8]) -> [UInt8]? {
        lock.lock()
        defer { lock.unlock() }
        return issuers[fingerprint]
    }

    func store(_ der: [UInt8], for fingerprint: [UInt8]) {
        lock.lock()
        defer { lock.unlock() }
        if issuers.count >= Self.maximum { issuers = [:] }
        issuers[fingerprint] = der
    }
}
