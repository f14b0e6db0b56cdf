import Foundation

/// One followed Certificate Transparency log as the exporter publishes it:
/// where it is verified to, and the steps that failed since start by reason.
public struct CTLogState: Hashable, Sendable {
    /// The log's description in its list.
    public var log: String
    /// The size of its last verified tree; nil before the first.
    public var verifiedSize: UInt64?
    /// Failed steps since start, by `CTLogError`'s short reason.
    public var errors: [String: Int]
    /// Whether its last step failed verification (`ct_log_misbehaving`).
    public var misbehaving: Bool
    /// While a gap larger than a step's budget is read: entries read of
    /// how many, towards the next verified tree.
    public var catchingUp: (read: UInt64, of: UInt64)? = nil

    public static func == (left: CTLogState, right: CTLogState) -> Bool {
        left.log == right.log && left.verifiedSize == right.verifiedSize && left.errors == right.errors
            && left.misbehaving == right.misbehaving && left.catchingUp?.read == right.catchingUp?.read
            && left.catchingUp?.of == right.catchingUp?.of
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(log)
        hasher.combine(verifiedSize)
        hasher.combine(catchingUp?.read)
        hasher.combine(catchingUp?.of)
    }

    public init(log: String, verifiedSize: UInt64?, errors: [String: Int] = [:], misbehaving: Bool = false) {
        self.log = log
        self.verifiedSize = verifiedSize
        self.errors = errors
        self.misbehaving = misbehaving
    }
}

extension CTLogState {
    /// The logs still reading a gap larger than a step, for a footer or a
    /// log line: `Certificate Transparency catching up: Log A 2048 of 10000
    /// new entries read`; nil when none is.
    public static func catchUpSummary(_ states: [CTLogState]) -> String? {
        let reading = states.compactMap { state in
            state.catchingUp.map { "\(TerminalText.sanitize(state.log)) \($0.read) of \($0.of)" }
        }
        guard !reading.isEmpty else { return nil }
        return "Certificate Transparency catching up: \(reading.joined(separator: ", ")) new entries read"
    }
}

/// What `ct:` keeps between runs: each followed log's verified position,
/// and the certificates logged for each host (by its `sni`, lower case),
/// judged. The history store in the product (`CTStateFile`).
package protocol CTStateStore: AnyObject, Sendable {
    func loadPositions() throws -> [CTLogPositionRecord]
    func savePositions(_ records: [CTLogPositionRecord]) throws
    /// The unexpired ones, newest first per host.
    func loadLogged(now: Date) throws -> [String: [CTLoggedCertificate]]
    /// Adds these and forgets the expired ones.
    func saveLogged(_ logged: [String: [CTLoggedCertificate]], now: Date) throws
}
