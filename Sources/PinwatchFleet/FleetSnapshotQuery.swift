import Foundation
import PinwatchCore
import PinwatchTransfer

/// `snapshot --prometheus`: the whole fleet, read in chunks so that no
/// answer has to hold every series of every host. Prometheus first
/// counts each exporter's rows (`count by (job, instance)` of
/// `pinwatch_host_reason_info` alone: a count costs Prometheus a pass
/// over the series it counts, about what answering them does), then the
/// series are asked for in chunks of about `seriesPerChunk`, sized by
/// the series per row the answers so far held: whole exporters where
/// they fit, named by `job` and `instance` (one entry of Prometheus'
/// index each), and an exporter larger than a chunk by its hosts,
/// counted the same way and named exactly: a regular expression of
/// plain alternatives, which Prometheus looks up in its index of label
/// values, at a cost for every name (Benchmarks/README.md). Each answer is bounded by
/// `maximumAnswer`, and one that is larger still is split again. A fleet
/// whose list of hosts alone passes that bound is counted and split by
/// ever longer prefixes of the host names instead (`label_replace` and
/// `count by` over every series). The fleet's size is bounded by nothing
/// but its rows' memory.
package struct FleetSnapshotQuery: Sendable {
    /// One answer's bound, the dashboard's: room for a chunk of
    /// `seriesPerChunk` series with labels many times longer than
    /// pinwatch writes.
    package static let maximumAnswer = FleetQuery.maximumBody
    package static let seriesPerChunk = 20_000
    /// Queries one `read` may ask: a fleet of millions of series is a few
    /// hundred; more is a server whose counts never let the chunks fit.
    package static let maximumQueries = 10_000
    /// Answers read into rows at once, off the reading thread, while the
    /// next is asked for: a read holds at most one more than this, and
    /// the rows (Benchmarks/README.md).
    package static let answersReadAtOnce = 2

    package let server: URL
    package let selector: String
    /// Each query's deadline, from its request to its answer's last byte.
    package let timeout: TimeInterval
    package let maximumAnswer: Int
    package let seriesPerChunk: Int
    package let maximumQueries: Int
    package let contents: Contents

    /// What the snapshot writes: the dashboard's table (text, ansi, svg,
    /// html), or the JSON document, which also says for each row whether
    /// its pins survive each next chain (a series per judged scenario,
    /// not asked for a table that has no column for it).
    package enum Contents: Sendable {
        case table
        case document
    }

    package init(
        server: URL, selector: String?, timeout: TimeInterval, contents: Contents = .table, maximumAnswer: Int = Self.maximumAnswer,
        seriesPerChunk: Int = Self.seriesPerChunk, maximumQueries: Int = Self.maximumQueries
    ) {
        self.contents = contents
        self.maximumQueries = maximumQueries
        self.server = server
        self.selector = FleetQuery.matchers(selector)
        self.timeout = timeout
        self.maximumAnswer = max(1, maximumAnswer)
        self.seriesPerChunk = max(1, seriesPerChunk)
    }

    /// The families of an exporter, not of a host: asked for once (the
    /// CA levels its hosts' chains name, once per distinct chain).
    static let instanceFamilies: [MetricFamilyName] = [.lastCycle, .pollInterval, .caLevelInfo]
    /// A host's families a chunk asks for: what the snapshot writes, not
    /// what only the dashboard's detail shows (each address's status; the
    /// probe's time, which a row's report carries only when its probe
    /// failed: asked for those rows afterwards). Every series costs
    /// Prometheus about the same to answer; so does every selector naming
    /// a chunk's hosts, so there is one (the earliest expiry at the leaf,
    /// which the leaf's own says, stays: a second selector for the other
    /// levels cost Prometheus more than the series it saved).
    var hostFamilies: [MetricFamilyName] {
        FleetSnapshot.families.filter { !Self.instanceFamilies.contains($0) && !FleetQueryPlan.detailFamilies.contains($0) }
            + (contents == .document ? [.nextChainSurvives] : [])
    }
    /// The label `count by` groups the next characters of host names under.
    static let nextLabel = "pinwatch_next_characters"

    /// The fleet, every row, on the caller's thread; the rows one
    /// `FleetQuery` answer would give but for what only the dashboard's
    /// detail shows: no row's probes, and a probe's time only where it
    /// failed. `progress` hears of each chunk read, from the thread that
    /// read it, one at a time.
    package func read(progress: (@Sendable (FleetReadProgress) -> Void)? = nil) -> Result<FleetSnapshot, FleetQueryProblem> {
        var held = 0
        return read(mostAnswersHeld: &held, progress: progress)
    }

    /// The same, saying how many answers it held at most at once.
    package func read(mostAnswersHeld: inout Int, progress: (@Sendable (FleetReadProgress) -> Void)? = nil) -> Result<
        FleetSnapshot, FleetQueryProblem
    > {
        let probeSeries = !selector.isEmpty
        let instances: VectorAnswer
        switch vector(FleetQueryPlan(selector: selector, probeSeries: true).exporterSeries(Self.instanceFamilies)) {
        case .failure(let problem): return .failure(problem)
        case .success(let answer): instances = answer
        }
        var reading = FleetSnapshotReading(query: self, instances: instances, probeSeries: probeSeries, progress: progress)
        let problem = reading.readByExporter()
        let fleet = reading.fleet()
        mostAnswersHeld = reading.rows.mostHeld
        if let problem { return .failure(problem) }
        guard case .success(var read) = fleet else { return fleet }
        if let problem = reading.readFailedProbes(of: &read.hosts) { return .failure(problem) }
        return .success(read)
    }

    /// One instant query's samples, or why there are none.
    func vector(_ promQL: String) -> Result<VectorAnswer, FleetQueryProblem> {
        transfer(promQL).flatMap { FleetQuery.vector(body: $0.body, status: $0.status) }
    }

    /// One instant query's answer, not yet read, or why there is none.
    func transfer(_ promQL: String) -> Result<(body: Data, status: Int), FleetQueryProblem> {
        // A chunk that names its hosts is POSTed past `FleetQuery.longestURL`.
        guard let request = FleetQuery.request(server: server, promQL: promQL) else {
            return .failure(FleetQueryProblem("cannot build a query URL from \(server.absoluteString)"))
        }
        let ending = BoundedTransfer(limit: maximumAnswer).fetch(request.url, form: request.form, timeout: timeout)
        if case .answered(let body, let status) = ending { return .success((body, status)) }
        return FleetQuery.vector(ending, timeout: timeout, limit: maximumAnswer).map { _ in (Data(), 0) }
    }

    /// `{__name__=~"a|b",selector,host=~"…"}`.
    static func selector(_ families: [MetricFamilyName], host: String?, extra: String) -> String {
        FleetQueryPlan(selector: extra, probeSeries: true).series(families, host.map { ["host=~" + FleetQueryPlan.literal($0)] } ?? [])
    }

    /// How many rows each host has; those without a host count under none.
    static func rowCountQuery(extra: String) -> String {
        "count by (host) (\(selector([.hostReasonInfo], host: nil, extra: extra)))"
    }

    /// How many rows each exporter has, by the labels Prometheus scraped it under.
    static func exporterCountQuery(extra: String) -> String {
        "count by (job, instance) (\(selector([.hostReasonInfo], host: nil, extra: extra)))"
    }

    /// The series a row is taken to have until answers hold more: about
    /// what pinwatch's exporter writes for a host.
    static let seriesPerRow = 10

    /// How many series of hosts starting with `prefix` continue with each
    /// `width` characters (fewer: the host is `prefix` and those);
    /// `""` counts the host equal to `prefix` (and, for the empty prefix,
    /// series without a host). Several at a time: names share long
    /// prefixes (`host`, `www.`), and each count reads every series under one.
    func countQuery(prefix: String, width: Int = 2, extra: String) -> String {
        let escaped = FleetQueryPlan.escapedForRegex(prefix)
        let series = Self.selector(hostFamilies, host: prefix.isEmpty ? nil : escaped + ".*", extra: extra)
        let next = FleetQueryPlan.literal(escaped + "(.{1,\(width)}).*")
        return
            "count by (\(Self.nextLabel)) (label_replace(\(series), \(FleetQueryPlan.literal(Self.nextLabel)), \"$1\", \"host\", \(next)))"
    }

}

/// How far a `FleetSnapshotQuery.read` has come: rows read so far, of
/// how many Prometheus counted (0 before it has).
package struct FleetReadProgress: Hashable, Sendable {
    package var rows: Int
    package var counted: Int
}
