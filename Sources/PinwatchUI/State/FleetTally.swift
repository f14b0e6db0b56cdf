import Foundation
import PinwatchCore

/// The whole fleet's counts when the rows loaded are only a window of it
/// (`watch --prometheus`): the header counts these instead of the rows.
package struct FleetTally: Hashable, Sendable {
    package var hosts: Int
    /// By severity, acknowledged hosts left out (the header counts those apart).
    package var severities: [HostSeverity: Int]
    package var acknowledged: Int
    /// By headline, acknowledged hosts in, with the worst severity of each.
    package var headlines: [HostHeadline: HeadlineTally]

    package init(hosts: Int, severities: [HostSeverity: Int], acknowledged: Int, headlines: [HostHeadline: HeadlineTally]) {
        self.hosts = hosts
        self.severities = severities
        self.acknowledged = acknowledged
        self.headlines = headlines
    }
}
