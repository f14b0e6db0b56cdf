import Foundation
import PinwatchCore
import PinwatchFleet

extension Output {
    /// `snapshot --prometheus --format json`: JSON version 1 of the fleet's
    /// rows, each made into its report only to be written (the summary is
    /// counted from the rows), so that a fleet's reports are never all
    /// held at once.
    static func streamJSON(_ fleet: FleetSnapshot, generatedAt now: Date) {
        let rows = fleet.hosts
        JSONReport.write(count: rows.count, summary: fleet.summary, generatedAt: now, vantage: nil, report: { rows[$0].report(now: now) }) {
            standardOutput($0)
        }
    }
}
