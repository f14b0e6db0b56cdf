import Foundation
import PinwatchCore

/// What a `Monitor` tells its front end, always on the monitor's queue.
package enum MonitorEvent {
    /// Why a configuration was read again.
    package enum ReloadCause: Sendable, Equatable {
        /// SIGHUP (or any caller's request).
        case requested
        /// A client pin file changed, appeared or went away on disk.
        case clientFilesChanged
    }

    /// How a cycle ended, with every configured host's latest report (this
    /// cycle's, else the one before it: a host left without a report keeps
    /// its previous verdict).
    package struct CycleEnd {
        /// Cycles finished since start, failed ones included (1, 2, …).
        package var number: Int
        package var outcome: HostPoller.CycleOutcome
        package var startedAt: Date
        package var finishedAt: Date
        package var reports: [HostReport]
    }

    case cycleStarted(hosts: Int, at: Date)
    /// Reports as they come, with the severity transitions among them
    /// (already handed to the hooks).
    case reports(HostPoller.Batch, transitions: [SeverityTransition])
    case cycleFinished(CycleEnd)
    /// A tick came while a cycle still ran; said once per monitor. The next
    /// cycle starts as that one ends.
    case cycleOverran(interval: TimeInterval, at: Date)
    /// A configuration was read; it takes over at the next cycle.
    case reloadRead(Config, cause: ReloadCause)
    /// Reading failed: the running configuration stays.
    case reloadFailed(any Error, cause: ReloadCause)
    /// The configuration read before now runs (between two cycles).
    case reloadApplied(Config)
    /// When the timer ticks next, after a start, a tick or a retiming.
    case nextTick(Date)
    /// Right after a cycle's end, when hook runs were merged, dropped or
    /// could not start since the last such event: `merged`, `dropped` and
    /// `failedStarts` count those since, `running` and `waiting` are now.
    case hooksBehind(HookRunner.Counts)
}
