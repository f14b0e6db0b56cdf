import Foundation

/// A pin-validation failure report as a client posts it: TrustKit's, the
/// HPKP report of RFC 7469 §3, or react-native-ssl-manager's. Every field
/// is the client's word, untrusted and bounded; nothing here is shown
/// before `ClientReportRecord` escapes it.
public struct PinFailureReport: Hashable, Sendable {
    public enum Format: String, Sendable, CaseIterable {
        case trustKit = "trustkit"
        case hpkp
        case sslManager = "ssl_manager"
    }

    public var format: Format
    /// The host the client connected to (lowercased).
    public var hostname: String
    /// Absent from react-native-ssl-manager's reports.
    public var port: Int?
    /// The pinned domain whose policy applied (`include-subdomains`).
    public var notedHostname: String?
    /// When the client says it failed (`date-time`), as written.
    public var dateTime: String?
    /// TrustKit's `app-bundle-id` and `app-version`.
    public var app: String?
    /// The chain the client saw, as PEM blocks: TrustKit's validated
    /// chain, HPKP's served chain (else its validated one).
    public var chainPEM: [String]
    /// react-native-ssl-manager sends no chain, only the served keys' pins.
    public var servedPins: [String]
    /// Why it refused, in words: TrustKit's validation result,
    /// ssl-manager's message.
    public var outcome: String?

    /// A report holds a chain of a few certificates; more is not a client's.
    public static let maximumChainLength = 10
    /// One PEM certificate, with room for large keys and many names.
    public static let maximumPEMBytes = 16 * 1024
    public static let maximumTextCharacters = 256
}

/// Why a body is not a report pinwatch reads: said in the 400 answer.
public struct PinFailureReportProblem: Error, Hashable, Sendable, CustomStringConvertible {
    public var description: String

    init(_ description: String) {
        self.description = description
    }
}

extension PinFailureReport {
    /// Reads one report; the format is told by the keys each library alone
    /// writes (TrustKit's `app-bundle-id` and `validation-result`,
    /// ssl-manager's `served-pins`, HPKP's `served-certificate-chain`).
    public static func parse(_ body: Data) -> Result<PinFailureReport, PinFailureReportProblem> {
        guard let object = try? JSONSerialization.jsonObject(with: body, options: []),
            let fields = object as? [String: Any]
        else {
            return .failure(PinFailureReportProblem("the body is not a JSON object"))
        }
        let format: Format
        if fields["app-bundle-id"] != nil || fields["validation-result"] != nil || fields["trustkit-version"] != nil {
            format = .trustKit
        } else if fields["served-pins"] != nil {
            format = .sslManager
        } else if fields["served-certificate-chain"] != nil || fields["effective-expiration-date"] != nil {
            format = .hpkp
        } else {
            return .failure(
                PinFailureReportProblem(
                    "not a pin failure report: no TrustKit (app-bundle-id), HPKP (served-certificate-chain) or react-native-ssl-manager (served-pins) keys"
                ))
        }
        guard let rawHost = fields["hostname"] as? String, !rawHost.isEmpty else {
            return .failure(PinFailureReportProblem("\(format.rawValue) report without a hostname"))
        }
        var port: Int?
        if let value = fields["port"] {
            guard let number = value as? NSNumber, let whole = Int(exactly: number.doubleValue), (1...65_535).contains(whole) else {
                return .failure(PinFailureReportProblem("\(format.rawValue) report: port is not a number from 1 to 65535"))
            }
            port = whole
        } else if format != .sslManager {
            return .failure(PinFailureReportProblem("\(format.rawValue) report without a port"))
        }
        let chainKey =
            format == .hpkp && fields["served-certificate-chain"] != nil ? "served-certificate-chain" : "validated-certificate-chain"
        let chain: [String]
        switch strings(fields[chainKey], key: chainKey, limit: maximumChainLength, bytes: maximumPEMBytes) {
        case .failure(let problem): return .failure(problem)
        case .success(let found): chain = found
        }
        let pins: [String]
        switch strings(fields["served-pins"], key: "served-pins", limit: maximumChainLength, bytes: 128) {
        case .failure(let problem): return .failure(problem)
        case .success(let found): pins = found
        }
        if format != .sslManager, chain.isEmpty {
            return .failure(PinFailureReportProblem("\(format.rawValue) report without \(chainKey)"))
        }
        let app = [fields["app-bundle-id"], fields["app-version"]].compactMap { $0 as? String }.filter { !$0.isEmpty }
        return .success(
            PinFailureReport(
                format: format, hostname: bounded(rawHost).lowercased(), port: port,
                notedHostname: (fields["noted-hostname"] as? String).map(bounded), dateTime: (fields["date-time"] as? String).map(bounded),
                app: app.isEmpty ? nil : bounded(app.joined(separator: " ")), chainPEM: chain, servedPins: pins.map(bounded),
                outcome: outcome(format, fields)))
    }

    private static func outcome(_ format: Format, _ fields: [String: Any]) -> String? {
        switch format {
        case .trustKit:
            // TrustKit's TSKPinValidationResult: 1 and 2 mean the same in
            // every release; later values were renumbered between releases.
            guard let number = fields["validation-result"] as? NSNumber else { return nil }
            switch number.intValue {
            case 1: return "no pin matched"
            case 2: return "chain not trusted"
            default: return "validation-result \(number.intValue)"
            }
        case .sslManager:
            let enforced = (fields["enforced"] as? Bool).map { $0 ? "enforced" : "not enforced" }
            let message = (fields["message"] as? String).map(bounded)
            let parts = [message, enforced].compactMap { $0 }
            return parts.isEmpty ? nil : parts.joined(separator: ", ")
        case .hpkp:
            return nil
        }
    }

    private static func strings(_ value: Any?, key: String, limit: Int, bytes: Int) -> Result<[String], PinFailureReportProblem> {
        guard let value else { return .success([]) }
        guard let items = value as? [Any], items.count <= limit else {
            return .failure(PinFailureReportProblem("\(key) is not a list of at most \(limit) strings"))
        }
        var found: [String] = []
        for item in items {
            guard let text = item as? String, text.utf8.count <= bytes else {
                return .failure(PinFailureReportProblem("\(key): each entry must be a string of at most \(bytes) bytes"))
            }
            found.append(text)
        }
        return .success(found)
    }

    private static func bounded(_ text: String) -> String {
        String(text.prefix(maximumTextCharacters))
    }
}
