import Foundation
import PinwatchCore
import PinwatchProbe
import PinwatchTransfer

/// One issuance as a hosted search with the API of SSLMate's Cert Spotter
/// v1 returns it (`expand=dns_names&expand=issuer&expand=cert`): the
/// certificate, or the precertificate when the certificate is not known,
/// and its issuer's name and key hash. Nothing in it is verified against a
/// log: a team that chooses a search trusts the service.
package struct CTIssuance: Sendable, Equatable {
    /// The service's opaque id: where the next query starts (`after`).
    package let id: String
    package let dnsNames: [String]
    package let certificateDER: [UInt8]
    package let isPrecertificate: Bool
    /// The issuer's distinguished name, as the service writes it.
    package let issuerName: String
    /// SHA-256 of the issuer's SubjectPublicKeyInfo.
    package let issuerSPKISHA256: [UInt8]
}

/// `GET <base>/v1/issuances?domain=…&include_subdomains=true&match_wildcards=true
/// &expand=dns_names&expand=issuer&expand=cert[&after=ID]` through libcurl,
/// bounded like a log's answers, with the token (`PINWATCH_CT_TOKEN`) as
/// `Authorization: Bearer`. A refused token and a 429 come back as
/// `CTLogError.httpStatus`, so that a watch backs off as it does from a log.
package struct CTSearchClient: Sendable {
    package let baseURL: URL
    private let token: String?
    package let timeout: TimeInterval
    /// An answer is one page of issuances, each with its certificate.
    package let limit: Int

    /// The environment variable the token is read from.
    package static let tokenVariable = "PINWATCH_CT_TOKEN"

    package init(baseURL: URL, token: String?, timeout: TimeInterval = 30, limit: Int = 16 << 20) {
        self.baseURL = baseURL
        self.token = token.flatMap { $0.isEmpty ? nil : $0 }
        self.timeout = timeout
        self.limit = limit
    }

    /// The token from `PINWATCH_CT_TOKEN`, if set.
    package init(baseURL: URL, environment: [String: String], timeout: TimeInterval = 30) {
        self.init(baseURL: baseURL, token: environment[Self.tokenVariable], timeout: timeout)
    }

    /// Whether a token is sent (the API answers a few queries without one).
    package var hasToken: Bool { token != nil }

    /// The issuances for `domain` and its subdomains discovered after the
    /// issuance `after` (from the first when nil), oldest first; empty
    /// once there are no more.
    package func issuances(domain: String, after: String?) throws(CTLogError) -> [CTIssuance] {
        var components = URLComponents(url: baseURL.appendingPathComponent("v1/issuances"), resolvingAgainstBaseURL: false)
        var items = [
            URLQueryItem(name: "domain", value: domain), URLQueryItem(name: "include_subdomains", value: "true"),
            URLQueryItem(name: "match_wildcards", value: "true"), URLQueryItem(name: "expand", value: "dns_names"),
            URLQueryItem(name: "expand", value: "issuer"), URLQueryItem(name: "expand", value: "cert"),
        ]
        if let after { items.append(URLQueryItem(name: "after", value: after)) }
        components?.queryItems = items
        guard let url = components?.url else { throw .transfer("search: cannot build a URL from \(baseURL.absoluteString)") }
        let what = "search \(url.host ?? "service") /v1/issuances for \(domain)"
        let headers = token.map { ["Authorization: Bearer \($0)"] } ?? []
        switch BoundedTransfer(limit: limit, headers: headers, threadName: "pinwatch-ct-search").fetch(url, timeout: timeout) {
        case .answered(let body, let status):
            if status == 401 || status == 403 {
                throw .httpStatus(
                    status,
                    what: "\(what): the service refused \(hasToken ? "the token in \(Self.tokenVariable)" : "a query without a token")")
            }
            guard status == 200 else { throw .httpStatus(status, what: what) }
            do {
                return try Self.parse([UInt8](body))
            } catch {
                throw .malformed("\(what): \(error.description)")
            }
        case .tooLarge: throw .tooLarge(what: what, limit: limit)
        case .timedOut: throw .timedOut(what: what)
        case .redirected(let location): throw .transfer("\(what): redirected to \(location), which is not followed")
        case .failed(let why): throw .transfer("\(what): \(why)")
        }
    }

    private struct Wire: Decodable {
        let id: String
        let dnsNames: [String]?
        let pubkeySHA256: String?
        let issuer: Issuer?
        let cert: Certificate?

        enum CodingKeys: String, CodingKey {
            case id
            case dnsNames = "dns_names"
            case pubkeySHA256 = "pubkey_sha256"
            case issuer
            case cert
        }
    }

    private struct Issuer: Decodable {
        let name: String?
        let pubkeySHA256: String?

        enum CodingKeys: String, CodingKey {
            case name
            case pubkeySHA256 = "pubkey_sha256"
        }
    }

    private struct Certificate: Decodable {
        let type: String
        let data: String
    }

    /// A page of issuances. Each must carry its certificate, and the key
    /// hash the service gives must be the certificate's: an answer that
    /// contradicts itself is malformed, not judged.
    static func parse(_ body: [UInt8]) throws(CTFormatError) -> [CTIssuance] {
        let wire: [Wire]
        do {
            wire = try JSONDecoder().decode([Wire].self, from: Data(body))
        } catch {
            throw CTFormatError("not a JSON array of issuances")
        }
        var issuances: [CTIssuance] = []
        for item in wire {
            let place = "issuance \(EchoedInput.quoted(item.id))"
            guard let cert = item.cert, let der = Data(base64Encoded: cert.data), cert.type == "cert" || cert.type == "precert"
            else { throw CTFormatError("\(place) has no certificate (cert with type cert or precert and base64 data)") }
            guard let certificate = try? X509Certificate(der: [UInt8](der)) else {
                throw CTFormatError("\(place): its certificate does not parse")
            }
            if let stated = item.pubkeySHA256, hex(certificate.facts.spkiSHA256) != stated.lowercased() {
                throw CTFormatError("\(place): pubkey_sha256 is not its certificate's key")
            }
            guard let issuerKey = item.issuer?.pubkeySHA256.flatMap(bytes(hex:)), issuerKey.count == 32 else {
                throw CTFormatError("\(place) has no issuer pubkey_sha256")
            }
            issuances.append(
                CTIssuance(
                    id: item.id, dnsNames: item.dnsNames ?? certificate.facts.subjectAltNames, certificateDER: [UInt8](der),
                    isPrecertificate: cert.type == "precert", issuerName: item.issuer?.name ?? certificate.facts.issuer,
                    issuerSPKISHA256: issuerKey))
        }
        return issuances
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    static func bytes(hex text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index...index + 1], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
        }
        return bytes
    }
}
