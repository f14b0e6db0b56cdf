import Foundation
import PinwatchCore

/// Where the dashboard's reports come from: the local `Monitor`
/// (`MonitorSource`) or a Prometheus server holding a fleet's verdicts
/// (`PrometheusSource`). The `DashboardController` owns the terminal, the
/// keys, the signals and the paints, the same for both; a source only
/// changes `dashboard.state` and says so.
///
/// Every call comes on the main queue, and a source calls the dashboard
/// back only there.
protocol DashboardSource: AnyObject {
    /// Once the screen is open: start producing reports for `dashboard`.
    func start(_ dashboard: DashboardController)
    /// `r`: fresh reports now.
    func refresh()
    /// SIGHUP, with the terminal still there.
    func reload()
    /// Once a second, just before the tick's paint.
    func tick(now: Date)
    func acknowledge(host index: Int, until: String, reason: String)
    func removeAcknowledgement(ofHost index: Int)
    /// The report whose stanza `y` copies.
    func stanzaReport(_ report: HostReport) -> HostReport
    /// Just before the process exits: nothing the source started may outlive it.
    func stop()
    /// After keys moved the selection or opened a view: a source that
    /// loads a window of its rows asks for what came into view.
    func viewChanged()
}

extension DashboardSource {
    /// A local fleet has every row already.
    func viewChanged() {}
}
