import Foundation
import PinwatchProbe

/// One log of a log list: who runs it, its key, and where to read it.
package struct CTLogDescription: Sendable, Equatable {
    package enum Interface: Sendable, Equatable {
        /// RFC 6962's `ct/v1/` API under `url`.
        case rfc6962(url: URL)
        /// C2SP static-ct-api: tiles and checkpoint under `monitoringURL`.
        case staticCTAPI(submissionURL: URL, monitoringURL: URL)
    }

    package let operatorName: String
    package let description: String
    /// DER SubjectPublicKeyInfo.
    package let key: [UInt8]
    /// SHA-256 of `key`.
    package let logID: [UInt8]
    package let interface: Interface
    /// Maximum merge delay, seconds.
    package let mmd: Int
    /// `usable`, `readonly`, `retired`, … (the name of `state`'s one key), or nil.
    package let state: String?
}

/// A log list in Chrome's v3 JSON format (`operators[].logs[]` for RFC 6962
/// logs, `operators[].tiled_logs[]` for static-ct-api logs), as Google
/// publishes it and certspotter reads it.
package struct CTLogList: Sendable, Equatable {
    package let version: String?
    /// `log_list_timestamp`, as the list writes it: how old the list is.
    package let timestamp: String?
    package let logs: [CTLogDescription]

    /// The largest list pinwatch reads (the public one is a few hundred KiB).
    package static let maximumSize = 8 << 20

    private struct Wire: Decodable {
        let version: String?
        let logListTimestamp: String?
        let operators: [Operator]

        enum CodingKeys: String, CodingKey {
            case version
            case logListTimestamp = "log_list_timestamp"
            case operators
        }
    }

    private struct Operator: Decodable {
        let name: String
        let logs: [Log]?
        let tiledLogs: [Log]?

        enum CodingKeys: String, CodingKey {
            case name
            case logs
            case tiledLogs = "tiled_logs"
        }
    }

    private struct Log: Decodable {
        let description: String?
        let logID: String
        let key: String
        let url: String?
        let submissionURL: String?
        let monitoringURL: String?
        let mmd: Int?
        let state: [String: State]?

        enum CodingKeys: String, CodingKey {
            case description
            case logID = "log_id"
            case key
            case url
            case submissionURL = "submission_url"
            case monitoringURL = "monitoring_url"
            case mmd
            case state
        }
    }

    private struct State: Decodable {}

    /// Every problem names the operator and log it was found in; a log
    /// whose `log_id` is not the SHA-256 of its `key` is refused, since the
    /// id is how entries and tree heads are attributed.
    package init(json: [UInt8]) throws(CTFormatError) {
        guard json.count <= Self.maximumSize else { throw CTFormatError("log list: more than \(Self.maximumSize >> 20) MiB") }
        let wire: Wire
        do {
            wire = try JSONDecoder().decode(Wire.self, from: Data(json))
        } catch {
            throw CTFormatError("log list: not a v3 log list (\(Self.describe(error)))")
        }
        var logs: [CTLogDescription] = []
        for (operatorIndex, op) in wire.operators.enumerated() {
            for (index, log) in (op.logs ?? []).enumerated() {
                let place = "operators[\(operatorIndex)].logs[\(index)]"
                guard let url = log.url.flatMap(Self.directoryURL) else {
                    throw CTFormatError("log list: \(place) has no http(s) url")
                }
                logs.append(try Self.describe(log, operatorName: op.name, place: place, interface: .rfc6962(url: url)))
            }
            for (index, log) in (op.tiledLogs ?? []).enumerated() {
                let place = "operators[\(operatorIndex)].tiled_logs[\(index)]"
                guard let submission = log.submissionURL.flatMap(Self.directoryURL),
                    let monitoring = log.monitoringURL.flatMap(Self.directoryURL)
                else {
                    throw CTFormatError("log list: \(place) lacks an http(s) submission_url or monitoring_url")
                }
                logs.append(
                    try Self.describe(
                        log, operatorName: op.name, place: place,
                        interface: .staticCTAPI(submissionURL: submission, monitoringURL: monitoring)))
            }
        }
        version = wire.version
        timestamp = wire.logListTimestamp
        self.logs = logs
    }

    private static func describe(
        _ log: Log, operatorName: String, place: String, interface: CTLogDescription.Interface
    ) throws(CTFormatError) -> CTLogDescription {
        guard let key = Data(base64Encoded: log.key), !key.isEmpty else {
            throw CTFormatError("log list: \(place)'s key is not base64")
        }
        guard let logID = Data(base64Encoded: log.logID), logID.count == MerkleHash.size else {
            throw CTFormatError("log list: \(place)'s log_id is not 32 bytes of base64")
        }
        guard [UInt8](logID) == SHA256Digest.of([UInt8](key)) else {
            throw CTFormatError("log list: \(place)'s log_id is not the SHA-256 of its key")
        }
        let mmd = log.mmd ?? 86_400
        guard mmd >= 0 else { throw CTFormatError("log list: \(place) has a negative mmd") }
        return CTLogDescription(
            operatorName: operatorName, description: log.description ?? "", key: [UInt8](key), logID: [UInt8](logID),
            interface: interface, mmd: mmd, state: log.state?.keys.sorted().first)
    }

    /// The URL with a trailing slash, so that API paths resolve beneath it.
    private static func directoryURL(_ text: String) -> URL? {
        guard let url = URL(string: text.hasSuffix("/") ? text : text + "/"),
            let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http", url.host != nil
        else { return nil }
        return url
    }

    private static func describe(_ error: Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            return "missing \((context.codingPath.map(\.stringValue) + [key.stringValue]).joined(separator: "."))"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            return "wrong type at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        default:
            return "malformed JSON"
        }
    }
}
