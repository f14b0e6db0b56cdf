import Foundation

/// How a server handed over a Signed Certificate Timestamp (RFC 6962
/// §3.3): Chrome's policy, which Android follows, counts them differently.
package enum SCTDelivery: String, Hashable, Sendable, CaseIterable {
    /// In the leaf's 1.3.6.1.4.1.11129.2.4.2 extension, signed over the precertificate.
    case embedded
    /// In the handshake's signed_certificate_timestamp extension.
    case tlsExtension = "tls_extension"
    /// In the stapled OCSP response's 1.3.6.1.4.1.11129.2.4.5 extension.
    case ocsp
}

/// One SCT the probe saw, and what its log's key said of its signature.
package struct ObservedSCT: Hashable, Sendable {
    package enum Check: Hashable, Sendable {
        /// The signature is the log's over this leaf.
        case valid
        /// The log is in the list, but its key did not sign this (a forgery,
        /// or an SCT for another certificate).
        case badSignature
        /// No log of the list has this id.
        case unknownLog
    }

    /// SHA-256 of the log's key.
    package var logID: [UInt8]
    package var delivery: SCTDelivery
    package var timestamp: Date
    package var check: Check
    /// The log's operator and state (`usable`, `retired`, …) in the list.
    package var logOperator: String?
    package var logState: String?

    package init(
        logID: [UInt8], delivery: SCTDelivery, timestamp: Date, check: Check, logOperator: String? = nil, logState: String? = nil
    ) {
        self.logID = logID
        self.delivery = delivery
        self.timestamp = timestamp
        self.check = check
        self.logOperator = logOperator
        self.logState = logState
    }
}

/// One log of `ct: logs:` as the probe needs it to check an SCT: plain
/// data, so that the probe need not read log lists.
package struct SCTLogKey: Hashable, Sendable {
    /// SHA-256 of `key`.
    package var logID: [UInt8]
    /// DER SubjectPublicKeyInfo.
    package var key: [UInt8]
    package var operatorName: String
    /// The name of the list's `state` key, or nil.
    package var state: String?

    package init(logID: [UInt8], key: [UInt8], operatorName: String, state: String?) {
        self.logID = logID
        self.key = key
        self.operatorName = operatorName
        self.state = state
    }
}

/// The logs of a list by id.
package struct SCTLogKeys: Hashable, Sendable {
    package private(set) var logs: [[UInt8]: SCTLogKey] = [:]

    package init(_ keys: [SCTLogKey]) {
        for key in keys { logs[key.logID] = key }
    }

    package subscript(logID: [UInt8]) -> SCTLogKey? { logs[logID] }
    package var isEmpty: Bool { logs.isEmpty }
}
