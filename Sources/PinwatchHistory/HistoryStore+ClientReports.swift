import Foundation
import PinwatchCore

extension HistoryStore {
    /// Clients' reports of the last day, by `host:port`; none in a file
    /// from before they were kept (read without migrating).
    func clientReportFacts(at date: Date) throws -> [String: ClientReportFacts] {
        guard fileVersion >= 6 else { return [:] }
        return try ClientReportTable.recentFacts(connection, now: date)
    }
}
