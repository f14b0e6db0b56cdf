import Foundation

/// How the history's writes fare. A full disk or a read-only remount must
/// not stop recording for good: the store keeps trying each cycle, and
/// this is what `serve` logs and exports meanwhile.
public struct HistoryWriteHealth: Hashable, Sendable {
    /// Recordings that failed and were rolled back, since start.
    public var failedWrites: Int
    /// The latest failure's message (kept after a recovery, for the log).
    public var lastFailure: String?
    /// The latest attempt failed.
    public var failing: Bool

    public init(failedWrites: Int = 0, lastFailure: String? = nil, failing: Bool = false) {
        self.failedWrites = failedWrites
        self.lastFailure = lastFailure
        self.failing = failing
    }
}

/// Decides what to log about failing history writes: the first failure at
/// once, then at most one line per `quietPeriod` while writes keep failing
/// (a full disk fails every cycle), and one line when writes succeed again.
public struct HistoryWriteNotices: Sendable {
    public enum Notice: Hashable, Sendable {
        /// `failures`: failed writes since the previous notice.
        case failing(message: String, failures: Int)
        /// `failures`: failed writes since the trouble began.
        case resumed(failures: Int)
    }

    private let quietPeriod: TimeInterval
    private var failuresSeen = 0
    private var unreported = 0
    private var failuresInTrouble = 0
    private var inTrouble = false
    private var lastNotice: Date?

    public init(quietPeriod: TimeInterval = 600) {
        self.quietPeriod = quietPeriod
    }

    public mutating func notices(for health: HistoryWriteHealth, at now: Date) -> [Notice] {
        let newFailures = max(0, health.failedWrites - failuresSeen)
        failuresSeen = health.failedWrites
        var notices: [Notice] = []
        if newFailures > 0 {
            unreported += newFailures
            failuresInTrouble += newFailures
            let quiet = inTrouble && lastNotice.map { now.timeIntervalSince($0) < quietPeriod } ?? false
            if !quiet {
                notices.append(.failing(message: health.lastFailure ?? "unknown error", failures: unreported))
                unreported = 0
                lastNotice = now
            }
            inTrouble = true
        }
        if inTrouble, !health.failing {
            notices.append(.resumed(failures: failuresInTrouble))
            inTrouble = false
            unreported = 0
            failuresInTrouble = 0
        }
        return notices
    }
}
