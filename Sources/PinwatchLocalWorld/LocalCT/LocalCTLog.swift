import Foundation
import PinwatchProbe

/// A Certificate Transparency log on 127.0.0.1 serving the same entries
/// over RFC 6962 (`get-sth`, `get-sth-consistency`, `get-entries` and
/// `get-roots` under `url`) and static-ct-api (`checkpoint`, hash and data
/// tiles, full and partial, data tiles gzipped, and `issuer/<fingerprint>`,
/// under the same URL), tree heads signed with a P-256 key of its own, fed
/// certificates and precertificates of the local PKI. Its tamper switches make it the
/// misbehaving log a monitor must refuse: a bad signature, a rewritten
/// history, entries that do not hash to the signed tree, an answer too
/// large to hold, a log that never answers.
///
/// `@unchecked Sendable`: its state is behind a lock; the server answers
/// on the local loop's thread.
package final class LocalCTLog: @unchecked Sendable {
    package enum Tamper: Sendable, Equatable {
        case none
        /// Every tree head's signature altered.
        case badSignature
        /// `get-entries` and data tiles serve each entry with another
        /// timestamp than the one the tree holds.
        case entriesNotInTree
        /// Hash tiles of level 0 served with their last hash altered.
        case tileNotInTree
        /// No checkpoint is served (404).
        case missingCheckpoint
        /// Issuers served with a byte altered: not the certificate their
        /// fingerprint names.
        case issuerNotItsFingerprint
        /// `get-entries` and data tiles answer with this many bytes.
        case hugeEntries(bytes: Int)
        /// No request is ever answered.
        case stall
        /// Every request is answered with this HTTP status (429, 503: a
        /// log that sheds load).
        case status(Int)
    }

    package let key: PrivateKey
    /// SHA-256 of the key's SubjectPublicKeyInfo: the log's id.
    package let logID: [UInt8]
    private let roots: [X509Certificate]
    private let now: @Sendable () -> Date
    private let lock = NSLock()
    private var leaves: [(leafInput: [UInt8], extraData: [UInt8])] = []
    /// Each entry as `get-entries` serves it, encoded once when it is
    /// added: a batch is these joined, so serving costs the log little and
    /// a benchmark measures its client.
    private var servedEntries: [[UInt8]] = []
    /// Each entry as static-ct-api's data tiles hold it (a TileLeaf).
    var tileLeaves: [[UInt8]] = []
    /// The issuers entries name, by lowercase hex SHA-256.
    var issuers: [String: [UInt8]] = [:]
    var tree = LocalMerkleTree()
    var published: (size: Int, json: [UInt8], checkpoint: [UInt8])?
    var currentTamper = Tamper.none
    /// Data tiles sent gzipped (the log's choice, with no negotiation).
    var gzipsDataTiles = true
    var gzippedAnswers = 0
    /// Tiles written for every entry added, ahead of the checkpoint, with
    /// each partial tile deleted once its full tile exists (as the spec
    /// lets a log do).
    var writesTilesAhead = false
    private var server: LocalHTTPServer!
    /// A batch larger than this is cut short, as real logs do.
    private let maximumBatch: Int

    package init(roots: [X509Certificate] = [], maximumBatch: Int = 64, now: @escaping @Sendable () -> Date = { Date() }) throws {
        key = try PrivateKey.ecdsa(.p256)
        logID = SHA256Digest.of(key.subjectPublicKeyInfoDER)
        self.roots = roots
        self.maximumBatch = maximumBatch
        self.now = now
        server = try LocalHTTPServer { [weak self] target in
            self?.respond(to: target) ?? .body(status: 503, contentType: "text/plain", Array("stopped".utf8))
        }
    }

    deinit {
        server.stop()
    }

    package var url: URL { URL(string: "http://127.0.0.1:\(server.port)/")! }
    /// Its checkpoint's origin line: its URL without scheme or trailing slash.
    package var origin: String { "127.0.0.1:\(server.port)" }
    package var port: Int { server.port }

    package func stop() {
        server.stop()
    }

    package var tamper: Tamper {
        get { locked { currentTamper } }
        set { locked { currentTamper = newValue } }
    }

    /// Connections the log has accepted: one per request.
    package var acceptedConnections: Int { server.acceptedConnections }

    /// Entries added, published or not.
    package var entryCount: Int { locked { leaves.count } }

    /// Logs `certificate` as an x509_entry; `chain` is its issuers, the
    /// leaf's issuer first. Returns its index.
    @discardableResult
    package func add(certificate: X509Certificate, chain: [X509Certificate]) -> Int {
        let der = certificate.der
        let leaf = leafHead(entryType: 0) + Self.vector24(der) + [0, 0]
        let extra = Self.vector24(chain.flatMap { Self.vector24($0.der) })
        return append(leaf, extra, tileLeaf: Array(leaf.dropFirst(2)) + fingerprints(chain), chain: chain)
    }

    /// Logs `precertificate` (with its poison) as a precert_entry under
    /// `issuer`'s key; `chain` is its issuers, `issuer` first.
    @discardableResult
    /// `submitted`, when given, is served in `extra_data` in place of the
    /// precertificate whose TBSCertificate the tree holds: a log that hands
    /// over another precertificate than the one it logged.
    package func add(
        precertificate: X509Certificate, issuer: X509Certificate, chain: [X509Certificate], submitted: X509Certificate? = nil
    ) throws -> Int {
        guard let tbs = PrecertificateTBS.withoutPoison(precertificate.der) else {
            throw LocalPKIError.issuing("not a precertificate: it has no poison extension")
        }
        let issuerKeyHash = issuer.facts.spkiSHA256
        let leaf = leafHead(entryType: 1) + issuerKeyHash + Self.vector24(tbs) + [0, 0]
        let extra = Self.vector24((submitted ?? precertificate).der) + Self.vector24(chain.flatMap { Self.vector24($0.der) })
        let tileLeaf = Array(leaf.dropFirst(2)) + Self.vector24((submitted ?? precertificate).der) + fingerprints(chain)
        return append(leaf, extra, tileLeaf: tileLeaf, chain: chain)
    }

    /// Signs a tree head over every entry added so far (or the first
    /// `size`) and serves it.
    @discardableResult
    package func publish(size wanted: Int? = nil) throws -> Int {
        let (size, root) = locked {
            let size = min(wanted ?? tree.size, tree.size)
            return (size, tree.root(0..<size))
        }
        let timestamp = UInt64(max(0, now().timeIntervalSince1970 * 1_000).rounded(.down))
        let input: [UInt8] = [0, 1] + Self.integer(timestamp, width: 8) + Self.integer(UInt64(size), width: 8) + root
        let signature = try key.signSHA256(input)
        let digitallySigned: [UInt8] = [4, 3] + Self.integer(UInt64(signature.count), width: 2) + signature
        let json: [String: Any] = [
            "tree_size": size, "timestamp": timestamp, "sha256_root_hash": Data(root).base64EncodedString(),
            "tree_head_signature": Data(digitallySigned).base64EncodedString(),
        ]
        let body = try [UInt8](JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]))
        // The same tree head as static-ct-api's checkpoint: a signed note
        // whose signature line carries an RFC6962NoteSignature.
        let keyID = Array(SHA256Digest.of(Array(origin.utf8) + [0x0A, 0x05] + logID).prefix(4))
        let note =
            "\(origin)\n\(size)\n\(Data(root).base64EncodedString())\n\n"
            + "\u{2014} \(origin) \(Data(keyID + Self.integer(timestamp, width: 8) + digitallySigned).base64EncodedString())\n"
        locked { published = (size, body, Array(note.utf8)) }
        return size
    }

    /// Rewrites entry `index` (a new timestamp, the same certificate) and
    /// publishes: the log's new tree no longer extends the one it signed before.
    package func rewriteHistory(at index: Int) throws {
        locked {
            var leaf = leaves[index].leafInput
            leaf[9] ^= 0x01
            leaves[index].leafInput = leaf
            servedEntries[index] = Self.servedEntry(leaf, leaves[index].extraData)
            tileLeaves[index][7] ^= 0x01
            tree.replace(at: index, leafInput: leaf)
        }
        try publish()
    }

    /// A Chrome v3 log list naming this log alone, as certspotter and
    /// pinwatch read it.
    /// `tiled`: the log under `tiled_logs`, read through static-ct-api
    /// (its submission and monitoring prefix both `url`).
    package func logList(description: String = "pinwatch local log", tiled: Bool = false) throws -> [UInt8] {
        var log: [String: Any] = [
            "description": description, "log_id": Data(logID).base64EncodedString(),
            "key": Data(key.subjectPublicKeyInfoDER).base64EncodedString(), "mmd": 86_400,
            "state": ["usable": ["timestamp": "2026-01-01T00:00:00Z"]],
        ]
        if tiled {
            log["submission_url"] = url.absoluteString
            log["monitoring_url"] = url.absoluteString
        } else {
            log["url"] = url.absoluteString
        }
        let list: [String: Any] = [
            "version": "1.0", "log_list_timestamp": "2026-01-01T00:00:00Z",
            "operators": [
                [
                    "name": "pinwatch local", "email": ["ct@example.test"], "logs": tiled ? [] : [log],
                    "tiled_logs": tiled ? [log] : [],
                ]
            ],
        ]
        return try [UInt8](JSONSerialization.data(withJSONObject: list, options: [.sortedKeys]))
    }

    private func respond(to target: String) -> LocalHTTPResponse {
        let components = URLComponents(string: target)
        let query = Dictionary(
            (components?.queryItems ?? []).compactMap { item in item.value.flatMap(Int.init).map { (item.name, $0) } },
            uniquingKeysWith: { first, _ in first })
        return locked {
            if currentTamper == .stall { return .silence }
            if case .status(let status) = currentTamper { return Self.error(status, "the log sheds load") }
            switch components?.path ?? "" {
            case "/ct/v1/get-sth":
                guard let published else { return Self.error(503, "no tree head published yet") }
                return .body(status: 200, contentType: "application/json", signatureTampered(published.json))
            case "/checkpoint":
                guard let published, currentTamper != .missingCheckpoint else { return Self.error(404, "no checkpoint published") }
                return .body(status: 200, contentType: "text/plain; charset=utf-8", checkpointTampered(published.checkpoint))
            case "/ct/v1/get-sth-consistency":
                guard let first = query["first"], let second = query["second"], first >= 0, first <= second,
                    second <= (published?.size ?? 0)
                else { return Self.error(400, "first and second must be tree sizes, first <= second") }
                let proof = tree.consistency(from: first, to: second).map { Data($0).base64EncodedString() }
                return Self.json(["consistency": proof])
            case "/ct/v1/get-entries":
                let size = published?.size ?? 0
                guard let start = query["start"], let end = query["end"], start >= 0, start <= end, start < size else {
                    return Self.error(400, "start and end must be within the tree, start <= end")
                }
                if case .hugeEntries(let bytes) = currentTamper {
                    return .flood(length: bytes, block: [UInt8](repeating: UInt8(ascii: " "), count: 64 << 10))
                }
                let last = min(end, size - 1, start + maximumBatch - 1)
                let entries = (start...last).map { index -> [UInt8] in
                    guard currentTamper == .entriesNotInTree else { return servedEntries[index] }
                    var leaf = leaves[index].leafInput
                    leaf[9] ^= 0x80
                    return Self.servedEntry(leaf, leaves[index].extraData)
                }
                let body = Array(#"{"entries":["#.utf8) + Array(entries.joined(separator: [UInt8(ascii: ",")])) + Array("]}".utf8)
                return .body(status: 200, contentType: "application/json", body)
            case "/ct/v1/get-roots":
                return Self.json(["certificates": roots.map { Data($0.der).base64EncodedString() }])
            case let path where path.hasPrefix("/tile/") || path.hasPrefix("/issuer/"):
                return staticAsset(path)
            default:
                return Self.error(404, "no such endpoint")
            }
        }
    }

    /// The tree head as published, or with the last byte of its signature
    /// flipped when the log lies.
    private func signatureTampered(_ json: [UInt8]) -> [UInt8] {
        guard currentTamper == .badSignature,
            var object = (try? JSONSerialization.jsonObject(with: Data(json))) as? [String: Any],
            let text = object["tree_head_signature"] as? String, var signature = Data(base64Encoded: text)
        else { return json }
        signature[signature.count - 1] ^= 0x01
        object["tree_head_signature"] = signature.base64EncodedString()
        return (try? [UInt8](JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))) ?? json
    }

    /// The checkpoint as published, or with a byte of its log signature
    /// flipped when the log lies.
    private func checkpointTampered(_ note: [UInt8]) -> [UInt8] {
        guard currentTamper == .badSignature, let text = String(bytes: note, encoding: .utf8),
            let line = text.split(separator: "\n").last, let encoded = line.split(separator: " ").last,
            var signature = Data(base64Encoded: String(encoded))
        else { return note }
        signature[signature.count - 1] ^= 0x01
        return Array(text.replacingOccurrences(of: String(encoded), with: signature.base64EncodedString()).utf8)
    }

    private func leafHead(entryType: UInt64) -> [UInt8] {
        let timestamp = UInt64(max(0, now().timeIntervalSince1970 * 1_000).rounded(.down))
        return [0, 0] + Self.integer(timestamp, width: 8) + Self.integer(entryType, width: 2)
    }

    /// The issuers' fingerprints as a TileLeaf's `certificate_chain`.
    private func fingerprints(_ chain: [X509Certificate]) -> [UInt8] {
        let hashes = chain.flatMap { SHA256Digest.of($0.der) }
        return Self.integer(UInt64(hashes.count), width: 2) + hashes
    }

    private func append(_ leaf: [UInt8], _ extra: [UInt8], tileLeaf: [UInt8], chain: [X509Certificate]) -> Int {
        locked {
            for issuer in chain { issuers[SHA256Digest.of(issuer.der).map { String(format: "%02x", $0) }.joined()] = issuer.der }
            tileLeaves.append(tileLeaf)
            leaves.append((leaf, extra))
            servedEntries.append(Self.servedEntry(leaf, extra))
            tree.append(leafInput: leaf)
            return leaves.count - 1
        }
    }

    func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// One entry of a `get-entries` answer: base64 holds no character
    /// JSON would escape.
    private static func servedEntry(_ leafInput: [UInt8], _ extraData: [UInt8]) -> [UInt8] {
        Array(
            #"{"extra_data":"\#(Data(extraData).base64EncodedString())","leaf_input":"\#(Data(leafInput).base64EncodedString())"}"#
                .utf8)
    }

    private static func json(_ object: [String: Any]) -> LocalHTTPResponse {
        let body = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return .body(status: 200, contentType: "application/json", [UInt8](body))
    }

    static func error(_ status: Int, _ message: String) -> LocalHTTPResponse {
        .body(status: status, contentType: "text/plain", Array(message.utf8))
    }

    static func integer(_ value: UInt64, width: Int) -> [UInt8] {
        (0..<width).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }

    static func vector24(_ bytes: [UInt8]) -> [UInt8] {
        integer(UInt64(bytes.count), width: 3) + bytes
    }
}
