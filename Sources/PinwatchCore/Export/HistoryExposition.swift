import Foundation

extension PrometheusExposition {
    /// The history store's own series, appended to a cycle's text by
    /// `serve` when history is on: a counter, so a failing disk shows as
    /// `increase(...) > 0` however the scrapes fall between cycles.
    public static func historyWrites(_ health: HistoryWriteHealth) -> String {
        """
        # HELP pinwatch_history_write_errors_total History recordings that failed (full disk, read-only file system) since start.
        # TYPE pinwatch_history_write_errors_total counter
        pinwatch_history_write_errors_total \(health.failedWrites)

        """
    }
}
