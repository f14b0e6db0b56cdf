import Foundation
import PinwatchTransfer

/// RFC 6962 §4's read API of one log, through libcurl: every answer
/// bounded in size and time, nothing of it trusted (the follower verifies).
package struct RFC6962Client: CTLogReader {
    package struct Limits: Sendable {
        /// A tree head or a proof is a few KiB.
        package var smallAnswer = 64 << 10
        /// A batch of entries: a thousand certificates with their chains.
        package var entriesAnswer = 16 << 20
        package var timeout: TimeInterval = 30
        /// Asked per `get-entries`; a log may send fewer.
        package var batchSize: UInt64 = 256

        package init() {}
    }

    package let baseURL: URL
    package let limits: Limits

    package init(baseURL: URL, limits: Limits = Limits()) {
        self.baseURL = baseURL
        self.limits = limits
    }

    package var batchSize: UInt64 { limits.batchSize }

    package func treeHead() throws(CTLogError) -> SignedTreeHead {
        let body = try get("ct/v1/get-sth", query: [], limit: limits.smallAnswer)
        do {
            return try SignedTreeHead(json: body)
        } catch {
            throw .malformed(error.description)
        }
    }

    package func consistencyProof(first: UInt64, second: UInt64) throws(CTLogError) -> [[UInt8]] {
        struct Wire: Decodable { let consistency: [String] }
        let body = try get(
            "ct/v1/get-sth-consistency", query: [("first", first), ("second", second)], limit: limits.smallAnswer)
        guard let wire = try? JSONDecoder().decode(Wire.self, from: Data(body)) else {
            throw .malformed("get-sth-consistency: not a JSON object with a consistency array")
        }
        var hashes: [[UInt8]] = []
        for text in wire.consistency {
            guard let hash = Data(base64Encoded: text) else { throw .malformed("get-sth-consistency: a hash is not base64") }
            hashes.append([UInt8](hash))
        }
        return hashes
    }

    /// Raw entries from `start` on, at most `end - start + 1` of them and
    /// at least one (RFC 6962 lets a log answer with fewer than asked).
    package func entries(start: UInt64, end: UInt64) throws(CTLogError) -> [(leafInput: [UInt8], extraData: [UInt8])] {
        struct Wire: Decodable { let entries: [Entry] }
        struct Entry: Decodable {
            let leafInput: String
            let extraData: String

            enum CodingKeys: String, CodingKey {
                case leafInput = "leaf_input"
                case extraData = "extra_data"
            }
        }
        let body = try get("ct/v1/get-entries", query: [("start", start), ("end", end)], limit: limits.entriesAnswer)
        guard let wire = try? JSONDecoder().decode(Wire.self, from: Data(body)) else {
            throw .malformed("get-entries: not a JSON object with an entries array")
        }
        guard !wire.entries.isEmpty, wire.entries.count <= Int(end - start + 1) else {
            throw .malformed("get-entries \(start)...\(end): \(wire.entries.count) entries")
        }
        var entries: [(leafInput: [UInt8], extraData: [UInt8])] = []
        entries.reserveCapacity(wire.entries.count)
        for entry in wire.entries {
            guard let leaf = Data(base64Encoded: entry.leafInput), let extra = Data(base64Encoded: entry.extraData) else {
                throw .malformed("get-entries: an entry is not base64")
            }
            entries.append(([UInt8](leaf), [UInt8](extra)))
        }
        return entries
    }

    package func entries(start: UInt64, end: UInt64, treeSize: UInt64) throws(CTLogError) -> [CTRawEntry] {
        try entries(start: start, end: end).map { CTRawEntry(leafInput: $0.leafInput, extraData: $0.extraData) }
    }

    /// An RFC 6962 entry carries its issuers in `extra_data`.
    package func issuers(_ fingerprints: [[UInt8]]) throws(CTLogError) -> [[UInt8]] { [] }

    private func get(_ path: String, query: [(String, UInt64)], limit: Int) throws(CTLogError) -> [UInt8] {
        var components = URLComponents(url: baseURL.appendingPathComponent(path), resolvingAgainstBaseURL: false)
        if !query.isEmpty { components?.queryItems = query.map { URLQueryItem(name: $0.0, value: String($0.1)) } }
        guard let url = components?.url else { throw .transfer("\(path): cannot build a URL from \(baseURL.absoluteString)") }
        let what = "\(url.host ?? "log") \(path)"
        switch try CTFetch.get(url, what: what, limit: limit, timeout: limits.timeout) {
        case .body(let body): return body
        case .notFound: throw .httpStatus(404, what: what)
        }
    }
}
