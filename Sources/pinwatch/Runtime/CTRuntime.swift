import Foundation
import PinwatchCore
import PinwatchHistory
import PinwatchMonitor

/// `ct: {logs: FILE}` for a command: the logs followed from the positions
/// its history store keeps (from the logs' size of the day without one).
enum CTRuntime {
    /// Nil without `ct: {logs:}`; an unreadable list is the user's error.
    static func following(_ config: Config, history: HostHistoryRecorder?) throws -> CTFollowing? {
        do {
            return try CTFollowing(config: config, positions: (history as? HistoryStore)?.ctPositions)
        } catch {
            throw UserFacingError(message: "\(error)")
        }
    }

    /// One step of every log, waited for: a one-shot command's reports
    /// then carry what it found.
    static func steppedOnce(_ config: Config, history: HostHistoryRecorder?) throws -> CTFollowing? {
        let ct = try following(config, history: history)
        ct?.stepAndWait()
        return ct
    }
}
