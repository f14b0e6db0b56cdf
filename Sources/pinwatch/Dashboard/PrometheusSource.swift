import Foundation
import PinwatchCore
import PinwatchFleet
import PinwatchUI

/// `watch --prometheus`: a fleet's verdicts as one Prometheus server holds
/// them. Nothing is probed here; every refresh asks Prometheus for what
/// the screen shows (`FleetQuery.fetchWindow`): the whole fleet's counts,
/// the worst rows that fit the window and their facts, and the open
/// detail's host. The rows, banner, detail view, keys and themes are the
/// local dashboard's own, fed with reports rebuilt from series.
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
    /// Something the screen needs (a page, a detail) came while a refresh
    /// was on its way: asked as soon as it answers.
    private var askAgain = false
    private var view: FleetView
    private var failingSince: Date?
    private weak var dashboard: DashboardController?
    /// The rows asked for, the worst first: a page at start, a page more
    /// each time the selection nears the last row loaded, up to `maximumWindow`.
    private var window: Int
    private let page: Int
    /// The detail's host the latest request asked for.
    private var detailAsked: String?
    /// The name the last request ranked hosts by (`hostNameFilter`).
    private var filterAsked: String?
    /// The name filter of the rows on screen (the latest answer's request).
    private var filterShown: String?
    /// `PINWATCH_BENCH_TIMING`: each refresh's bytes and time, for the benchmarks.
    private let benchLog: String?
    private var askedAt = Date()

    /// The rows a window starts with: a tall screen's and a margin.
    static let defaultPage = 250
    /// Paging stops here: past it the answer's size would be the fleet's
    /// again (a narrower --match shows the rest).
    static let maximumWindow = 5_000

    /// `PINWATCH_FLEET_WINDOW`: the first window and each page (tests set it low).
    static func page(environment: [String: String]) -> Int {
        guard let text = environment["PINWATCH_FLEET_WINDOW"], let rows = Int(text), (1...maximumWindow).contains(rows) else {
            return defaultPage
        }
        return rows
    }

    init(query: FleetQuery, config: Config, interval chosenInterval: TimeInterval?, environment: [String: String]) {
        self.query = query
        self.config = config
        self.chosenInterval = chosenInterval
        page = Self.page(environment: environment)
        window = page
        benchLog = environment["PINWATCH_BENCH_TIMING"]
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

    /// After keys: a detail just opened asks for its host's facts, and a
    /// selection near the last row loaded (its last screen, or quarter of
    /// a page when a page is shorter than the screen) asks for a page more.
    func viewChanged() {
        guard let state = dashboard?.state else { return }
        var wanted = false
        if let detail = detailHost(state), detail.key != detailAsked { wanted = true }
        // A name typed at `/` is looked for in the whole fleet, not only
        // among the rows loaded.
        if view.isWindowed || filterAsked != nil, state.hostNameFilter != filterAsked { wanted = true }
        // Only an unfiltered table's last screen asks for more: not the
        // rows a filter keeps, nor the few a name filter loaded until the
        // unfiltered ones are back.
        if case .table = state.view, state.filter.isEmpty, filterAsked == nil, filterShown == nil, !state.isEditingFilter, view.isWindowed,
            window < Self.maximumWindow, let row = state.selectedRow,
            row >= state.visibleHostIndices.count - max(1, min(state.metrics.tableCapacity, page / 4))
        {
            window = min(Self.maximumWindow, window + page)
            wanted = true
        }
        guard wanted else { return }
        if fetching { askAgain = true } else { ask() }
    }

    /// The host of the open detail view.
    private func detailHost(_ state: DashboardState) -> (host: String, port: Int, key: String)? {
        guard case .detail(let index) = state.view, state.hosts.indices.contains(index) else { return nil }
        let host = state.hosts[index]
        return (host.host, host.port, "\(host.host)\u{0}\(host.port)")
    }

    private func ask() {
        // A slow server is not asked twice at once; the next tick asks again.
        guard !fetching else { return }
        fetching = true
        askAgain = false
        askedAt = Date()
        let detail = dashboard.flatMap { detailHost($0.state) }
        detailAsked = detail?.key
        filterAsked = view.isWindowed || filterAsked != nil ? dashboard?.state.hostNameFilter : nil
        let request = FleetWindowRequest(window: window, detail: detail.map { ($0.host, $0.port) }, hostContains: filterAsked)
        query.fetchWindow(request) { outcome in
            DispatchQueue.main.async { [weak self] in self?.answered(outcome) }
        }
    }

    private func answered(_ outcome: Result<FleetWindow, FleetQueryProblem>) {
        fetching = false
        defer { if askAgain { ask() } }
        guard let dashboard else { return }
        let now = Date()
        switch outcome {
        case .success(let answer):
            // One request at a time: the one answered is the latest asked.
            filterShown = filterAsked
            let fleet = answer.snapshot
            logBench(answer, at: now)
            let more = window < Self.maximumWindow
            if view.show(answer, on: &dashboard.state, config: config, at: now, canLoadMore: more) { dashboard.ringBell() }
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
        // A key that asked for more while a filter's rows were on screen
        // (`G` just after the filter was cleared) is answered now.
        viewChanged()
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

    private func logBench(_ answer: FleetWindow, at now: Date) {
        guard let benchLog else { return }
        let milliseconds = WholeNumber.clamped(now.timeIntervalSince(askedAt) * 1_000)
        FrameTiming.append(
            "fleet_refresh_bytes \(answer.bytes) queries \(answer.queries) rows \(answer.snapshot.hosts.count) ms \(milliseconds)\n",
            to: benchLog)
    }

    private func describeSource(now: Date) {
        guard let dashboard else { return }
        dashboard.state.sourceNote = view.note(for: dashboard.state, now: now)
    }
}
