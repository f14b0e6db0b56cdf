import Foundation
import PinwatchCore
import PinwatchFleet

extension Output {
    /// `snapshot --prometheus --format json`: JSON version 1 of the fleet's
    /// rows, each made into its report once to be counted and once to be
    /// written, so that a fleet's reports are never all held at once.
    static func streamJSON(_ fleet: FleetSnapshot, generatedAt now: Date) {
        let rows = fleet.hosts
        var summary = StatusSummary([])
        var severities = SeveritySummary([HostReport]())
        for row in rows {
            let report = row.report(now: now)
            summary.count(report)
            severities.count(report)
        }
        JSONReport.write(
            count: rows.count, summary: summary, severities: severities, generatedAt: now, vantage: nil,
            report: { rows[$0].report(now: now) }
        ) { standardOutput($0) }
    }
}
