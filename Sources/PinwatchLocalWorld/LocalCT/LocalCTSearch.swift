import Foundation
import PinwatchProbe

/// A hosted Certificate Transparency search on 127.0.0.1 answering as
/// SSLMate's Cert Spotter API v1 documents it: `GET /v1/issuances` with
/// `domain`, `include_subdomains`, `match_wildcards`, `after` and
/// `expand` (`dns_names`, `issuer`, `cert`), a JSON array of issuance
/// objects in the order they were added, a page at a time, for the bearer
/// token it was made with (401 and an error object otherwise).
///
/// `@unchecked Sendable`: its state is behind a lock; the server answers
/// on the local loop's thread.
package final class LocalCTSearch: @unchecked Sendable {
    private struct Issuance {
        let id: Int
        let certificate: X509Certificate
        let precertificate: Bool
        let issuer: X509Certificate
    }

    private let token: String
    private let pageSize: Int
    private let lock = NSLock()
    private var issuances: [Issuance] = []
    private var answerStatus: Int?
    private var queries: [String] = []
    private var server: LocalHTTPServer!

    package init(token: String, pageSize: Int = 2) throws {
        self.token = token
        self.pageSize = pageSize
        server = try LocalHTTPServer { [weak self] request in
            self?.respond(to: request) ?? .body(status: 503, contentType: "text/plain", Array("stopped".utf8))
        }
    }

    deinit {
        server.stop()
    }

    package var url: URL { URL(string: "http://127.0.0.1:\(server.port)/")! }

    package func stop() {
        server.stop()
    }

    /// Every request answered with this status (429: a service that sheds load); nil to answer.
    package var status: Int? {
        get { locked { answerStatus } }
        set { locked { answerStatus = newValue } }
    }

    /// The request targets received, in order.
    package var receivedQueries: [String] { locked { queries } }

    /// Adds an issuance (ids rise from 1000 in the order added).
    package func add(_ certificate: X509Certificate, precertificate: Bool = false, issuer: X509Certificate) {
        locked {
            issuances.append(
                Issuance(id: 1_000 + issuances.count, certificate: certificate, precertificate: precertificate, issuer: issuer))
        }
    }

    private func respond(to request: LocalHTTPRequest) -> LocalHTTPResponse {
        locked {
            queries.append(request.target)
            if let answerStatus { return Self.error(answerStatus, "rate_limited", "slow down") }
            guard request.headers["authorization"] == "Bearer \(token)" else {
                return Self.error(401, "unauthorized", "Invalid API key")
            }
            guard let components = URLComponents(string: request.target), components.path == "/v1/issuances" else {
                return Self.error(404, "not_found", "no such endpoint")
            }
            let items = components.queryItems ?? []
            func value(_ name: String) -> String? { items.first { $0.name == name }?.value }
            guard let domain = value("domain")?.lowercased(), !domain.isEmpty else {
                return Self.error(400, "invalid_request", "domain is required")
            }
            let subdomains = value("include_subdomains") == "true"
            let wildcards = value("match_wildcards") == "true"
            let after = value("after").flatMap(Int.init) ?? -1
            let expand = Set(items.filter { $0.name == "expand" }.compactMap(\.value))
            let matching = issuances.filter { issuance in
                issuance.id > after
                    && issuance.certificate.facts.subjectAltNames.contains { name in
                        let name = name.lowercased()
                        if name == domain || (subdomains && name.hasSuffix("." + domain)) { return true }
                        guard wildcards, name.hasPrefix("*."), let dot = domain.firstIndex(of: ".") else { return false }
                        return name.dropFirst(2) == domain[domain.index(after: dot)...]
                    }
            }
            let page = matching.prefix(pageSize).map { Self.object($0, expand: expand) }
            let body = (try? JSONSerialization.data(withJSONObject: Array(page), options: [.sortedKeys])) ?? Data()
            return .body(status: 200, contentType: "application/json", [UInt8](body))
        }
    }

    private static func object(_ issuance: Issuance, expand: Set<String>) -> [String: Any] {
        let facts = issuance.certificate.facts
        let dates = ISO8601DateFormatter()
        var object: [String: Any] = [
            "id": String(issuance.id),
            "pubkey_sha256": hex(facts.spkiSHA256), "not_before": dates.string(from: facts.notBefore),
            "not_after": dates.string(from: facts.notAfter), "revoked": false,
        ]
        if expand.contains("dns_names") { object["dns_names"] = facts.subjectAltNames }
        if expand.contains("issuer") {
            object["issuer"] = [
                "friendly_name": issuance.issuer.facts.subject, "name": issuance.issuer.facts.subject,
                "pubkey_sha256": hex(issuance.issuer.facts.spkiSHA256),
            ]
        }
        if expand.contains("cert") {
            object["cert"] = [
                "id": String(issuance.id), "type": issuance.precertificate ? "precert" : "cert",
                "sha256": hex(SHA256Digest.of(issuance.certificate.der)), "data": Data(issuance.certificate.der).base64EncodedString(),
            ]
        }
        return object
    }

    private static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    private static func error(_ status: Int, _ code: String, _ message: String) -> LocalHTTPResponse {
        let body = (try? JSONSerialization.data(withJSONObject: ["code": code, "message": message], options: [.sortedKeys])) ?? Data()
        return .body(status: status, contentType: "application/json", [UInt8](body))
    }

    private func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
