import Foundation
import PinwatchCore
import PinwatchTransfer

/// What one refresh of the dashboard asks for.
package struct FleetWindowRequest: Hashable, Sendable {
    /// At most this many rows, the worst first.
    package var window: Int
    /// The host whose detail view is open: what only the detail shows is
    /// asked for it alone.
    package var detail: (host: String, port: Int)?
    /// The dashboard's `/` text: only hosts whose name holds it (any case)
    /// are ranked, so a host outside the worst rows can still be found.
    package var hostContains: String?

    package init(window: Int, detail: (host: String, port: Int)? = nil, hostContains: String? = nil) {
        self.window = window
        self.detail = detail
        self.hostContains = hostContains
    }

    package static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.window == rhs.window && lhs.detail?.host == rhs.detail?.host && lhs.detail?.port == rhs.detail?.port
            && lhs.hostContains == rhs.hostContains
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(window)
        hasher.combine(hostContains)
        hasher.combine(detail?.host)
        hasher.combine(detail?.port)
    }
}

/// One refresh's answer: the rows of the window, the whole fleet's counts,
/// and what it cost.
package struct FleetWindow: Sendable {
    package var snapshot: FleetSnapshot
    package var counts: FleetCounts
    /// The bytes of every answer read (unpacked), and how many queries.
    package var bytes = 0
    package var queries = 0

    package init(snapshot: FleetSnapshot, counts: FleetCounts, bytes: Int = 0, queries: Int = 0) {
        self.snapshot = snapshot
        self.counts = counts
        self.bytes = bytes
        self.queries = queries
    }
}

extension FleetQuery {
    /// The plan of this query's `--match`: without one, `/probe` rows are left out.
    package var plan: FleetQueryPlan {
        FleetQueryPlan(selector: selector, probeSeries: !selector.isEmpty)
    }

    /// Calls `completion` once, on a thread of its own, with the window or
    /// why it could not be read; every query shares one deadline, `timeout`
    /// after the call. Asks, in turn: the counts and the instances; the
    /// worst rows that fit `request.window`; their facts; which of them
    /// disagree between vantages (only when some do); the detail's host.
    package func fetchWindow(
        _ request: FleetWindowRequest, completion: @escaping @Sendable (Result<FleetWindow, FleetQueryProblem>) -> Void
    ) {
        let deadline = Date().addingTimeInterval(timeout)
        let thread = Thread { [self] in
            let outcome = window(request, deadline: deadline)
            // Closed on the way: the dashboard is gone, nobody to tell.
            if !isClosed { completion(outcome) }
        }
        thread.name = "pinwatch-fleet-window"
        thread.start()
    }

    private func window(_ request: FleetWindowRequest, deadline: Date) -> Result<FleetWindow, FleetQueryProblem> {
        let plan = plan
        var result = FleetWindow(snapshot: FleetSnapshot([]), counts: FleetCounts())
        var skipped = 0
        var seen: Set<Data> = []
        // Each answer's samples of the families its query asked for: a
        // server that answers every query alike (not Prometheus) is not
        // read as rows four times, nor its skipped samples counted four times.
        func ask(_ promQL: String, keeping names: Set<String>?) -> Result<[VectorSample], FleetQueryProblem> {
            switch askSynchronously(promQL, deadline: deadline) {
            case .failure(let problem):
                return .failure(problem)
            case .success(let (answer, body)):
                result.bytes += body.count
                result.queries += 1
                if seen.insert(body).inserted { skipped += answer.skipped }
                guard let names else { return .success(answer.samples) }
                return .success(answer.samples.filter { names.contains($0.name) })
            }
        }
        func names(_ families: [MetricFamilyName]) -> Set<String> { Set(families.map(\.rawValue)) }

        let counted: [VectorSample]
        switch ask(plan.counts, keeping: nil) {
        case .failure(let problem): return .failure(problem)
        case .success(let samples): counted = samples
        }
        let counts = FleetCounts(counted)
        result.counts = counts
        var samples = counted.filter { FleetCounts.isInstanceFamily($0.name) }

        let bands = FleetQueryPlan.bands(counts, window: request.window, filtered: request.hostContains != nil)
        if let rows = plan.rows(bands, hostContains: request.hostContains) {
            switch ask(rows, keeping: names([.hostReasonInfo])) {
            case .failure(let problem): return .failure(problem)
            case .success(let found): samples += found
            }
        }
        let hosts = samples.filter { $0.name == MetricFamilyName.hostReasonInfo.rawValue }.compactMap { $0.labels["host"] }
        var disagreeing: Set<String> = []
        if !hosts.isEmpty {
            switch ask(plan.facts(hosts: hosts), keeping: names(FleetQueryPlan.factFamilies)) {
            case .failure(let problem): return .failure(problem)
            case .success(let found): samples += found
            }
            if counts.disagreeing > 0 {
                switch ask(plan.disagreeing(hosts: hosts), keeping: nil) {
                case .failure(let problem): return .failure(problem)
                case .success(let found): disagreeing = Set(found.compactMap(Self.hostKey))
                }
            }
        }
        if let detail = request.detail {
            switch ask(plan.detail(host: detail.host, port: detail.port), keeping: names(FleetQueryPlan.detailFamilies)) {
            case .failure(let problem): return .failure(problem)
            case .success(let found): samples += found
            }
        }
        // The `/probe` rows were left out by the rows' query; its count says how many.
        var snapshot = FleetSnapshot(samples, probeSeries: true)
        snapshot.disagreeing = disagreeing
        snapshot.probeRows = counts.probeRows
        snapshot.skipped += skipped
        result.snapshot = snapshot
        return .success(result)
    }

    /// `FleetHost.hostKey` from a disagreement's labels.
    static func hostKey(_ sample: VectorSample) -> String? {
        guard let host = sample.labels["host"], let port = sample.labels["port"].flatMap(Int.init) else { return nil }
        func nonEmpty(_ name: String) -> String? { sample.labels[name].flatMap { $0.isEmpty ? nil : $0 } }
        return FleetHost.hostKey(host: host, port: port, sni: nonEmpty("sni"), address: nonEmpty("address"))
    }

    /// One query on the caller's thread, within `deadline`.
    private func askSynchronously(_ promQL: String, deadline: Date) -> Result<(VectorAnswer, Data), FleetQueryProblem> {
        let left = deadline.timeIntervalSinceNow
        guard left > 0 else {
            return .failure(FleetQueryProblem("Prometheus query timed out after \(Self.seconds(timeout)): no whole answer"))
        }
        guard let ending = transferHere(promQL, timeout: left) else { return .failure(FleetQueryProblem("the query was closed")) }
        switch ending {
        case .answered(let body, let status):
            guard (200..<300).contains(status) || status == 400 || status == 422 else {
                return .failure(FleetQueryProblem("Prometheus answered HTTP \(status)"))
            }
            return PrometheusVector.parse(body).map { ($0, body) }
        default:
            // The whole-fleet query's words for every other ending.
            switch Self.outcome(ending, timeout: timeout, probeSeries: true) {
            case .failure(let problem): return .failure(problem)
            case .success: return .failure(FleetQueryProblem("no answer"))
            }
        }
    }
}
