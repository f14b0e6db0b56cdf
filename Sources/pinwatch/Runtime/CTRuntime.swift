import Foundation
import PinwatchCT
import PinwatchCore
import PinwatchHistory
import PinwatchMonitor

/// `ct: {logs: FILE | built-in, search: URL}` for a command: the logs followed from the positions
/// its history store keeps (from the logs' size of the day without one).
enum CTRuntime {
    /// Nil without `ct: {logs:}` or `search:`; an unreadable list is the user's error.
    /// `requestTimeout`: each request to a log; nil keeps the client's own.
    static func following(_ config: Config, history: HostHistoryRecorder?, requestTimeout: TimeInterval? = nil) throws -> CTFollowing? {
        var limits = RFC6962Client.Limits()
        if let requestTimeout { limits.timeout = requestTimeout }
        do {
            return try CTFollowing(config: config, saved: (history as? HistoryStore)?.ctState, limits: limits)
        } catch {
            throw UserFacingError(message: "\(error)")
        }
    }

    /// One step of every log, waited for: a one-shot command's reports
    /// then carry what it found. Each request waits no longer than a
    /// probe (`timeout:`): a log that stalls costs a cron run one timeout,
    /// not the client's half minute.
    static func steppedOnce(_ config: Config, history: HostHistoryRecorder?) throws -> CTFollowing? {
        let ct = try following(config, history: history, requestTimeout: max(1, config.timeout))
        ct?.stepAndWait()
        return ct
    }
}
