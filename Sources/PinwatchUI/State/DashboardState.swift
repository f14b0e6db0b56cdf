import Foundation
import PinwatchCore

/// Everything the dashboard shows, as a value.
///
/// The controller feeds it results and keys and has `DashboardLayout` paint
/// it into a Frame (handing back the paint's `LayoutMetrics`); nothing here touches the terminal or the clock, so every screen is
/// a pure function of this value and a `now`, and tests can build any of them.
package struct DashboardState: Sendable {
    // MARK: Configuration facts
    package var configPath: String
    package var warnDays: Int
    package var criticalDays: Int
    /// e.g. `proxy http://proxy:3128 (https_proxy)`; nil when the environment has none.
    package var proxyIndicator: String?
    package private(set) var hosts: [HostConfig] {
        didSet { hostLabels = HostLabels(hosts) }
    }
    /// Row labels and their widest, worked out once per host list.
    private(set) var hostLabels = HostLabels([])
    /// Clock times in the header and detail view.
    package var timeZone: TimeZone
    /// `--ascii` or a C locale: every glyph drawn in its ASCII stand-in.
    package var asciiOnly = false

    // MARK: Results
    /// Latest report per host, by configuration index.
    package private(set) var reports: [HostReport?]
    /// When each host entered its current status.
    package private(set) var statusSince: [Date?]
    package private(set) var isProbing = false
    package private(set) var cycleTotal = 0
    package private(set) var cycleCompleted = 0
    package private(set) var lastCycleFinishedAt: Date?
    package var nextCycleAt: Date?

    // MARK: Interaction
    package var sortOrder: SortOrder = .worstFirst {
        didSet { derived = DerivedRows() }
    }
    /// `I` (htop's invert): the sort column's order the other way round.
    package var sortReversed = false {
        didSet { derived = DerivedRows() }
    }
    /// The filter as typed. A text that is no filter (a bad regex) leaves
    /// the previous one in force and says why in `filterProblem`.
    package var filter = "" {
        didSet {
            switch HostFilter.parse(filter) {
            case .success(let parsed):
                activeFilter = parsed
                filterProblem = nil
            case .failure(let problem):
                filterProblem = problem.message + ": the previous filter stays"
            }
            derived = DerivedRows()
        }
    }
    /// The filter the rows follow: the latest text that parsed.
    private var activeFilter = HostFilter()

    /// The part of a name the filter in force looks for, when a source
    /// that holds only some of the hosts (the fleet view's window) can ask
    /// for it (`HostFilter.nameText`).
    package var hostNameFilter: String? { activeFilter.nameText }
    /// Why the text typed is not the filter in force, for the footer.
    package private(set) var filterProblem: String?
    package private(set) var isEditingFilter = false
    /// `a`: the footer asking until when and why; nil otherwise.
    package internal(set) var acknowledgementPrompt: AcknowledgementPrompt?
    /// False with history off: `a` says why instead of asking.
    package var canStoreAcknowledgements = true
    /// Leaving a view takes its footer message with it (`footerMessage`).
    package var view: DashboardView = .table {
        didSet {
            if let scope = footerMessageScope, scope != view.messageScope { footerMessage = nil }
        }
    }
    /// Selected host by configuration index, so the bar follows the host
    /// when rows re-sort. Until the user moves it, the selection is the
    /// top row of the table as sorted now (the worst host, by default).
    package var selectedHost: Int? {
        chosenHost ?? visibleHostIndices.first
    }
    /// Set once the user moves the selection; nil follows the top row.
    private var chosenHost: Int?
    /// First visible table row.
    package private(set) var scrollOffset = 0
    /// First visible line of the detail view.
    package private(set) var detailScroll = 0
    /// The latest paint's measures: page sizes, where rows are, how long
    /// the scrolled view is.
    package private(set) var metrics = LayoutMetrics()
    /// One line for the footer, e.g. the demo's "rotated the intermediate of payments.demo".
    /// It belongs to the view that raised it: a stanza copied in the detail
    /// view is not announced over the table, nor a table's notice over a detail view.
    package var footerMessage: String? {
        didSet {
            footerMessageScope = footerMessage == nil ? nil : view.messageScope
            footerMessageAcknowledgement = nil
        }
    }
    /// The view `footerMessage` was raised in.
    private var footerMessageScope: DashboardView?
    /// The host (by identity) whose acknowledgement `footerMessage`
    /// announced: "acknowledged … until …; A removes it" must not stay on
    /// screen once the acknowledgement has ended or been spent.
    private var footerMessageAcknowledgement: String?
    /// `watch --prometheus`: where the rows come from and how old they
    /// are (the header), and why the source cannot answer (the banner).
    package var sourceNote: String?
    package var sourceProblem: String?
    /// The whole fleet's counts, when `hosts` is a window of it.
    package var fleetTally: FleetTally?
    /// Why the history shown is not this dashboard's own: another pinwatch
    /// (a `serve`) holds the store, read here read-only (the header).
    package var historyNote: String?
    /// The CA catalogue's data date (`CA data 2026-08-21`, `(stale)` past
    /// half a year), so a verdict on stale data does not pass as current.
    package var catalogueNote: String?
    package var catalogueStale = false
    package var themeName: String
    /// The `pins:` stanza for the detail view, set by the controller after `.copyPins`.
    package var stanzaText: String?
    /// The client releases of `clients:`, in configuration order.
    package var clients: [(name: String, format: ClientFormat)] = []

    package init(
        configPath: String, hosts: [HostConfig], warnDays: Int = 21, criticalDays: Int = 7,
        proxyIndicator: String? = nil, themeName: String = "default", timeZone: TimeZone = .current
    ) {
        self.configPath = configPath
        self.hosts = hosts
        hostLabels = HostLabels(hosts)
        self.warnDays = warnDays
        self.criticalDays = criticalDays
        self.proxyIndicator = proxyIndicator
        self.themeName = themeName
        self.timeZone = timeZone
        reports = Array(repeating: nil, count: hosts.count)
        statusSince = Array(repeating: nil, count: hosts.count)
    }

    package init(config: Config, proxyIndicator: String? = nil, themeName: String? = nil, timeZone: TimeZone = .current) {
        self.init(
            configPath: config.path ?? "(built-in)", hosts: config.hosts, warnDays: config.warnDays,
            criticalDays: config.criticalDays, proxyIndicator: proxyIndicator, themeName: themeName ?? config.theme,
            timeZone: timeZone)
        clients = config.clients.map { ($0.name, $0.pins.format) }
    }

    /// A footer message about the acknowledgement of host `index`: it
    /// stays while that acknowledgement holds, and goes with it.
    package mutating func announceAcknowledgement(_ message: String, ofHost index: Int) {
        footerMessage = message
        if hosts.indices.contains(index) { footerMessageAcknowledgement = hosts[index].identityKey }
    }

    // MARK: Cycles

    package mutating func beginCycle(total: Int, at date: Date) {
        isProbing = true
        cycleTotal = max(0, total)
        cycleCompleted = 0
    }

    /// Stores a host's new report and returns true when the bell should ring:
    /// when the host's severity gets worse (`HostSeverity.isWorse`), once
    /// per transition. A first result counts as coming from ok, so a
    /// dashboard started while a pin is already failing rings too.
    @discardableResult
    package mutating func record(_ report: HostReport, forHost index: Int, at date: Date) -> Bool {
        guard hosts.indices.contains(index) else { return false }
        let previous = reports[index]
        if let since = report.history?.statusSince {
            // The store remembers across restarts; the screen trusts it.
            statusSince[index] = since
        } else if previous?.status != report.status || statusSince[index] == nil {
            statusSince[index] = date
        }
        reports[index] = report
        if report.acknowledgement == nil, footerMessageAcknowledgement == hosts[index].identityKey { footerMessage = nil }
        derived = DerivedRows()
        // No scroll clamping here: a cycle records every host, and the layout
        // keeps the selection in view on its own; the next key re-clamps.
        if isProbing { cycleCompleted = min(cycleTotal, cycleCompleted + 1) }
        // An acknowledged problem is known: no bell for it.
        return report.acknowledgement == nil && report.severity.isWorse(than: previous?.severity)
    }

    /// A reloaded configuration: hosts that stay (same name, port, SNI and
    /// address) keep their report, their "since", the selection and an
    /// open detail view; new hosts wait for their first result; removed
    /// ones are gone.
    package mutating func replaceHosts(_ newHosts: [HostConfig], warnDays: Int, criticalDays: Int) {
        var byIdentity: [String: (report: HostReport?, since: Date?)] = [:]
        for (index, host) in hosts.enumerated() {
            byIdentity[host.identityKey] = (reports[index], statusSince[index])
        }
        let chosenIdentity = chosenHost.flatMap { hosts.indices.contains($0) ? hosts[$0].identityKey : nil }
        let oldHosts = hosts
        hosts = newHosts
        reports = newHosts.map { byIdentity[$0.identityKey]?.report ?? nil }
        statusSince = newHosts.map { byIdentity[$0.identityKey]?.since ?? nil }
        self.warnDays = warnDays
        self.criticalDays = criticalDays
        chosenHost = chosenIdentity.flatMap { identity in newHosts.firstIndex { $0.identityKey == identity } }
        // A detail stays open on its host while the host stays (a fleet's
        // window changes its rows at any refresh), found again by identity.
        if case .detail(let index) = view {
            let identity = oldHosts.indices.contains(index) ? oldHosts[index].identityKey : nil
            if let kept = identity.flatMap({ identity in newHosts.firstIndex { $0.identityKey == identity } }) {
                view = .detail(hostIndex: kept)
            } else {
                view = .table
            }
        }
        // The prompt names a host by its index, which the new list may give another.
        if acknowledgementPrompt != nil {
            acknowledgementPrompt = nil
            footerMessage = "acknowledgement cancelled: the configuration was reloaded"
        }
        derived = DerivedRows()
        clampScroll()
    }

    package mutating func finishCycle(at date: Date) {
        isProbing = false
        lastCycleFinishedAt = date
    }

    /// What a paint measured, so paging and scrolling match what is drawn.
    package mutating func apply(_ metrics: LayoutMetrics) {
        self.metrics = metrics
        clampScroll()
    }

    // MARK: Derived rows

    /// Rows and counts worked out once per change of results, filter or
    /// sort: every paint and key asks for them, and with 10,000 hosts
    /// sorting on each request would cost more than the paint itself.
    private var derived = DerivedRows()

    /// Configuration indices of the rows shown, filtered and in display order.
    package var visibleHostIndices: [Int] {
        if let rows = derived.rows { return rows }
        let rows = computeVisibleHostIndices()
        derived.rows = rows
        return rows
    }

    /// The hosts `activeFilter` keeps (`HostFilter`), in the sort order.
    private func computeVisibleHostIndices() -> [Int] {
        let matching = hosts.indices.filter { activeFilter.keeps(hosts[$0], report: reports[$0]) }
        return sortedRows(matching)
    }

    /// Per-headline counts of the latest results, with the worst severity
    /// among each headline's hosts: the header counts what the rows say, in
    /// the symbol they show (`✗ expiring` when one of them is critical).
    package var headlineCounts: [HostHeadline: HeadlineTally] {
        if let counts = derived.counts { return counts }
        var counts: [HostHeadline: HeadlineTally] = [:]
        for case let report? in reports {
            var tally = counts[report.headline] ?? HeadlineTally(count: 0, worst: report.severity)
            tally.count += 1
            if report.severity.rank > tally.worst.rank { tally.worst = report.severity }
            counts[report.headline] = tally
        }
        derived.counts = counts
        return counts
    }

    /// Per-severity counts of the latest results, acknowledged hosts left
    /// out (the header counts those apart).
    package var severityCounts: SeveritySummary {
        if let counts = derived.severityCounts { return counts }
        // Counted in place: a copy of the reports would double a fleet's state.
        let counts = SeveritySummary(reports.lazy.filter { $0?.acknowledgement == nil })
        derived.severityCounts = counts
        return counts
    }

    /// Hosts the banner speaks of: every host whose severity is not ok, by
    /// severity, in configuration order.
    package var alertingHosts: AlertingHosts {
        if let hosts = derived.alerting { return hosts }
        var found = AlertingHosts()
        for (index, report) in reports.enumerated() {
            if report?.acknowledgement != nil {
                found.acknowledged.append(index)
                continue
            }
            switch report?.severity {
            case .critical: found.critical.append(index)
            case .unknown: found.unknown.append(index)
            case .warning: found.warning.append(index)
            case .ok, nil: continue
            }
        }
        derived.alerting = found
        return found
    }

    /// Position of the selection among `visibleHostIndices`, if it is visible.
    package var selectedRow: Int? {
        guard let selectedHost else { return nil }
        return visibleHostIndices.firstIndex(of: selectedHost)
    }

    func hostIndices(matching status: HostStatus) -> [Int] {
        hosts.indices.filter { reports[$0]?.status == status }
    }

    // MARK: Selection and scrolling (used by key handling)

    mutating func moveSelection(by delta: Int) {
        let rows = visibleHostIndices
        guard !rows.isEmpty else {
            scrollOffset = 0
            return
        }
        let current = selectedRow ?? 0
        let target = min(rows.count - 1, max(0, current + delta))
        chosenHost = rows[target]
        clampScroll()
    }

    mutating func selectRow(_ row: Int) {
        moveSelection(by: row - (selectedRow ?? 0))
    }

    mutating func scrollDetail(by delta: Int) {
        detailScroll = max(0, min(maxDetailScroll, detailScroll + delta))
    }

    mutating func setDetailScroll(_ value: Int) {
        detailScroll = max(0, min(maxDetailScroll, value))
    }

    mutating func startEditingFilter() { isEditingFilter = true }

    mutating func stopEditingFilter() {
        isEditingFilter = false
        keepSelectionVisible()
    }

    /// After the rows change (filter, sort, new results), select a visible row.
    mutating func keepSelectionVisible() {
        let rows = visibleHostIndices
        if let selectedHost, rows.contains(selectedHost) {
            clampScroll()
            return
        }
        chosenHost = rows.first ?? chosenHost
        scrollOffset = 0
        clampScroll()
    }

    var tablePageSize: Int {
        max(1, metrics.tableCapacity)
    }

    var detailPageSize: Int {
        max(1, metrics.scrolledCapacity)
    }

    /// Until the next paint measures a view just opened, it does not scroll.
    var maxDetailScroll: Int {
        switch view {
        case .detail, .clients: return max(0, metrics.scrolledLineCount - detailPageSize)
        case .table, .help: return 0
        }
    }

    /// The table row (index into `visibleHostIndices`) drawn on `screenRow`
    /// at the latest paint, or nil when that row shows no host.
    func tableRow(atScreenRow screenRow: Int) -> Int? {
        let offset = screenRow - metrics.firstHostRow
        guard offset >= 0, offset < metrics.tableCapacity else { return nil }
        let row = tableWindowStart(capacity: metrics.tableCapacity) + offset
        return row < visibleHostIndices.count ? row : nil
    }

    /// The first table row on a screen of `capacity` rows: the scroll
    /// position, moved as little as keeps the selection in view.
    func tableWindowStart(capacity: Int) -> Int {
        let count = visibleHostIndices.count
        var first = min(scrollOffset, max(0, count - capacity))
        if let selected = selectedRow {
            if selected < first { first = selected }
            if selected >= first + capacity { first = selected - capacity + 1 }
        }
        return first
    }

    mutating func resetDetailScroll() { detailScroll = 0 }

    /// Keeps the selection inside the visible window of the table.
    mutating func clampScroll() {
        let count = visibleHostIndices.count
        let page = tablePageSize
        if let row = selectedRow {
            if row < scrollOffset { scrollOffset = row }
            if row >= scrollOffset + page { scrollOffset = row - page + 1 }
        }
        scrollOffset = max(0, min(scrollOffset, max(0, count - page)))
        detailScroll = max(0, min(detailScroll, maxDetailScroll))
    }
}

/// A memo shared by copies of one state value. Every mutation that changes
/// what it holds replaces it with a fresh one instead of writing to it, so a
/// copy never sees another value's rows; filling it on first use is safe
/// because all values sharing it have the same hosts, reports, filter and
/// sort, and a dashboard state is used from one thread (the main queue).
final class DerivedRows: @unchecked Sendable {
    var rows: [Int]?
    var counts: [HostHeadline: HeadlineTally]?
    var severityCounts: SeveritySummary?
    var alerting: AlertingHosts?
}

/// How many hosts show one headline, and the worst severity among them.
package struct HeadlineTally: Hashable, Sendable {
    package var count: Int
    package var worst: HostSeverity

    package init(count: Int, worst: HostSeverity) {
        self.count = count
        self.worst = worst
    }
}

/// Configuration indices of the hosts that need the on-call, by severity.
package struct AlertingHosts: Hashable, Sendable {
    package var critical: [Int] = []
    package var unknown: [Int] = []
    package var warning: [Int] = []
    /// Troubled or not, out of the banner's count: their problem is known.
    package var acknowledged: [Int] = []

    package var count: Int { critical.count + unknown.count + warning.count }

    /// Worst first, configuration order within a severity.
    package var worstFirst: [Int] { critical + unknown + warning }
}
