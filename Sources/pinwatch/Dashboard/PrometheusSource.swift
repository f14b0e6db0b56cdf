import Foundation
import PinwatchCore
import PinwatchFleet
import PinwatchUI

/// `watch --prometheus`: a fleet's verdicts as one Prometheus server holds
/// them. Nothing is probed here; every refresh is one instant query, and
/// the rows, banner, detail view, keys and themes are the local
/// dashboard's own, fed with reports rebuilt from series.
///
/// Everything but the query's completion runs on the main queue, which
/// the completion hops back onto; `@unchecked Sendable` for that hop.
final class PrometheusSource: DashboardSource, @unchecked Sendable {
    private let query: FleetQuery
    private let config: Config
    /// `--interval`; without it the view refreshes as often as the
    /// exporters poll (`pinwatch_poll_interval_seconds`), once they say.
    private let chosenInterval: TimeInterval?
    private var interval: TimeInterval
    private var refreshTimer: DispatchSourceTimer?
    private var fetching = false
    private var view: FleetView
    private var failingSince: Date?
    private weak var dashboard: DashboardController?

    init(query: FleetQuery, config: Config, interval chosenInterval: TimeInterval?) {
        self.query = query
        self.config = config
        self.chosenInterval = chosenInterval
        // Until an answer names the exporters, asked again soon: a view
        // started before Prometheus' first scrape is not left a minute empty.
        interval = chosenInterval ?? min(config.interval, Self.untilExportersAnswer)
        view = FleetView(server: query.server.absoluteString)
        view.refresh = interval
    }

    /// The dashboard's first state: no rows until Prometheus answers.
    func initialState(themeName: String, display: DisplayChoice) -> DashboardState {
        var state = DashboardState(configPath: query.server.absoluteString, hosts: [], themeName: themeName)
        display.apply(to: &state)
        state.sourceNote = "prometheus \(query.server.absoluteString): asking…"
        return state
    }

    func start(_ dashboard: DashboardController) {
        self.dashboard = dashboard
        let timer = DispatchSource.makeTimerSource(queue: .main)
        timer.schedule(deadline: .now(), repeating: interval, leeway: .milliseconds(100))
        timer.setEventHandler { [weak self] in self?.ask() }
        timer.resume()
        refreshTimer = timer
    }

    func refresh() {
        ask()
    }

    /// Nothing to read again: SIGHUP asks Prometheus now.
    func reload() {
        ask()
    }

    /// Ages in the header move every second.
    func tick(now: Date) {
        describeSource(now: now)
    }

    func acknowledge(host index: Int, until: String, reason: String) {
        refuseAcknowledgement()
    }

    func removeAcknowledgement(ofHost index: Int) {
        refuseAcknowledgement()
    }

    /// The fleet's verdicts belong to the instances that decided them.
    private func refuseAcknowledgement() {
        dashboard?.announce("acknowledge on the instance that watches the host (its dashboard or silence:), not from --prometheus")
    }

    /// The stanza configures the host itself, whichever vantage saw it.
    func stanzaReport(_ report: HostReport) -> HostReport {
        var report = report
        report.config.vantage = nil
        return report
    }

    func stop() {
        query.close()
    }

    // MARK: Asking Prometheus

    private func ask() {
        // A slow server is not asked twice at once; the next tick asks again.
        guard !fetching else { return }
        fetching = true
        query.fetch { outcome in
            DispatchQueue.main.async { [weak self] in self?.answered(outcome) }
        }
    }

    private func answered(_ outcome: Result<FleetSnapshot, FleetQueryProblem>) {
        fetching = false
        guard let dashboard else { return }
        let now = Date()
        switch outcome {
        case .success(let fleet):
            if view.show(fleet, on: &dashboard.state, config: config, at: now) { dashboard.ringBell() }
            // Every instance gone is said as such, not as a selector that matches nothing.
            if let gone = view.goneProblem(timeZone: dashboard.state.timeZone) {
                failingSince = nil
                dashboard.state.sourceProblem = gone
            } else if fleet.hosts.isEmpty {
                fail(FleetView.nothingMatches(query), at: now, on: dashboard)
            } else {
                failingSince = nil
                dashboard.state.sourceProblem = nil
            }
            followExporters(fleet)
        case .failure(let problem):
            // The last rows stay, aged in the header, under the banner.
            fail(problem.description, at: now, on: dashboard)
        }
        describeSource(now: now)
        dashboard.schedulePaint()
    }

    /// Asks as often as the exporters can change the answer: a rotation
    /// shows within one of their cycles, not within a minute.
    private func followExporters(_ fleet: FleetSnapshot) {
        guard chosenInterval == nil, !fleet.instances.isEmpty else { return }
        // An exporter too old to say its interval: the configuration's.
        let wanted = min(max(fleet.pollInterval ?? config.interval, Self.shortestRefresh), Self.longestRefresh)
        guard wanted != interval else { return }
        interval = wanted
        view.refresh = wanted
        refreshTimer?.schedule(deadline: .now() + wanted, repeating: wanted, leeway: .milliseconds(100))
    }

    /// Past these the exporters' interval is not followed: Prometheus is
    /// not asked more than once a second, nor the screen left an hour old.
    static let shortestRefresh: TimeInterval = 1
    static let untilExportersAnswer: TimeInterval = 5
    static let longestRefresh: TimeInterval = 3_600

    private func fail(_ problem: String, at now: Date, on dashboard: DashboardController) {
        if failingSince == nil { failingSince = now }
        let since = Formatting.clock(failingSince ?? now, timeZone: dashboard.state.timeZone)
        dashboard.state.sourceProblem = "\(problem) (since \(since))"
    }

    private func describeSource(now: Date) {
        guard let dashboard else { return }
        dashboard.state.sourceNote = view.note(for: dashboard.state, now: now)
    }
}
