import Foundation
import XCTest

/// DESIGN §8 as types: decoding fails on a missing field or a wrong type,
/// so a test that decodes has already checked the schema's shape.
struct SnapshotDocument: Decodable {
    var version: Int
    var generatedAt: String
    var summary: SummaryObject
    var hosts: [HostObject]

    func host(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> HostObject {
        try XCTUnwrap(hosts.first { $0.host == name }, "no host \(name) in the snapshot", file: file, line: line)
    }
}

struct SummaryObject: Decodable {
    var ok: Int
    var leafOnly: Int
    var blocked: Int
    var error: Int
    var unpinned: Int
    var severity: [String: Int]

    var statusCounts: [String: Int] {
        ["ok": ok, "leaf_only": leafOnly, "blocked": blocked, "error": error, "unpinned": unpinned]
    }
}

struct HostObject: Decodable {
    var host: String
    var port: Int
    var sni: String
    var address: String?
    var status: String
    var matchedTiers: [String]
    var alerts: [String]
    var severity: String
    var reason: String
    var headline: String
    var trusted: Bool
    var trustError: String?
    var leafDaysLeft: Int?
    var leafNotAfter: String?
    var proxy: ProxyObject
    var error: ErrorObject?
    var elapsedMs: Int
    var statusSince: String?
    // convertFromSnakeCase capitalises "24h" too.
    var changes24H: Int?
    var renewalEstimate: RenewalObject?
    var chain: [LevelObject]
}

struct RenewalObject: Decodable {
    var date: String
    var basis: String
    var cadenceDays: Int?
}

struct ProxyObject: Decodable {
    var detected: Bool
    var source: String?
    var url: String?
    var intercepted: Bool
}

struct ErrorObject: Decodable {
    var kind: String
    var message: String
}

struct LevelObject: Decodable {
    var level: Int
    var role: String
    var fromServer: Bool
    var subject: String
    var issuer: String
    var notBefore: String
    var notAfter: String
    var daysLeft: Int
    var key: String
    var spkiSha256: String
    var keySha256: String
    var certSha256: String
    var lifetimeDays: Double
    var lifetimeUsed: Double?
    var matched: [MatchObject]
}

struct MatchObject: Decodable {
    var tier: String
    var pin: String
}

/// The exact key sets of DESIGN §8: "every host carries every field", so
/// a key that is absent (rather than `null`) is a failure too.
enum SnapshotKeys {
    static let root: Set<String> = ["version", "generated_at", "vantage", "summary", "hosts"]
    static let summary: Set<String> = ["ok", "leaf_only", "blocked", "error", "unpinned", "severity"]
    static let severity: Set<String> = ["critical", "unknown", "warning", "ok"]
    static let host: Set<String> = [
        "host", "port", "sni", "address", "status", "matched_tiers", "alerts", "severity", "reason", "headline", "trusted", "trust_error",
        "leaf_days_left", "leaf_not_after", "days_left", "earliest_not_after", "earliest_level", "proxy", "error", "elapsed_ms",
        "status_since", "changes_24h", "renewal_estimate", "chain",
        "clients", "next_chains", "survives", "recommended_pins", "ct",
        "labels", "runbook", "acknowledged",
    ]
    static let proxy: Set<String> = ["detected", "source", "url", "intercepted"]
    static let error: Set<String> = ["kind", "message"]
    static let level: Set<String> = [
        "level", "role", "from_server", "subject", "issuer", "not_before", "not_after", "days_left", "key",
        "spki_sha256", "key_sha256", "cert_sha256", "lifetime_days", "lifetime_used", "matched",
    ]
    static let match: Set<String> = ["tier", "pin"]
}

enum SnapshotJSON {
    static func decode(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws -> SnapshotDocument {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        do {
            return try decoder.decode(SnapshotDocument.self, from: Data(text.utf8))
        } catch {
            XCTFail("snapshot JSON does not match DESIGN §8: \(error)\n\(text.prefix(2000))", file: file, line: line)
            throw error
        }
    }

    /// Checks that every object in the document has exactly its §8 keys.
    static func assertExactKeys(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let root = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], file: file, line: line)
        XCTAssertEqual(Set(root.keys), SnapshotKeys.root, "root keys", file: file, line: line)
        let summary = try XCTUnwrap(root["summary"] as? [String: Any], file: file, line: line)
        XCTAssertEqual(Set(summary.keys), SnapshotKeys.summary, "summary keys", file: file, line: line)
        let severity = try XCTUnwrap(summary["severity"] as? [String: Any], file: file, line: line)
        XCTAssertEqual(Set(severity.keys), SnapshotKeys.severity, "summary.severity keys", file: file, line: line)
        let hosts = try XCTUnwrap(root["hosts"] as? [[String: Any]], file: file, line: line)
        for host in hosts {
            try assertHostKeys(host, file: file, line: line)
        }
    }

    static func assertHostKeys(_ host: [String: Any], file: StaticString = #filePath, line: UInt = #line) throws {
        let name = host["host"] as? String ?? "?"
        XCTAssertEqual(Set(host.keys), SnapshotKeys.host, "keys of host \(name)", file: file, line: line)
        let proxy = try XCTUnwrap(host["proxy"] as? [String: Any], "proxy of \(name)", file: file, line: line)
        XCTAssertEqual(Set(proxy.keys), SnapshotKeys.proxy, "proxy keys of \(name)", file: file, line: line)
        if let error = host["error"] as? [String: Any] {
            XCTAssertEqual(Set(error.keys), SnapshotKeys.error, "error keys of \(name)", file: file, line: line)
        } else {
            XCTAssertTrue(host["error"] is NSNull, "error of \(name) is an object or null", file: file, line: line)
        }
        let chain = try XCTUnwrap(host["chain"] as? [[String: Any]], "chain of \(name)", file: file, line: line)
        for level in chain {
            XCTAssertEqual(Set(level.keys), SnapshotKeys.level, "level keys of \(name)", file: file, line: line)
            for match in level["matched"] as? [[String: Any]] ?? [] {
                XCTAssertEqual(Set(match.keys), SnapshotKeys.match, "match keys of \(name)", file: file, line: line)
            }
        }
    }

    static func date(_ text: String?) -> Date? {
        guard let text else { return nil }
        return ISO8601DateFormatter().date(from: text)
    }
}

extension String {
    /// True when the text holds the ESC or BEL byte of a terminal control sequence.
    var containsControlBytes: Bool {
        unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || (0x80...0x9F).contains($0.value) }
    }
}
