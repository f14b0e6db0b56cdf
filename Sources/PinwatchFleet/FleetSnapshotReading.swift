import Foundation
import PinwatchCore

/// One `read`: the chunks asked for so far and their rows.
struct FleetSnapshotReading {
    /// Hosts of a chunk: equal to a name, or starting with a prefix.
    enum Hosts {
        case named(String)
        case starting(String)

        var pattern: String {
            switch self {
            case .named(let name): return FleetQueryPlan.escapedForRegex(name)
            case .starting(let prefix): return FleetQueryPlan.escapedForRegex(prefix) + ".*"
            }
        }
    }

    /// The rows an exporter sent Prometheus, by the labels it was scraped
    /// under (a missing label is "", which matches its absence).
    struct Exporter {
        var job: String
        var instance: String
        var rows: Int

        /// The matchers of exporters of one job: their `job`, and their
        /// `instance` exactly, or as plain alternatives for several.
        static func matchers(_ pack: [Exporter]) -> [String] {
            let instance =
                pack.count == 1
                ? "instance=" + FleetQueryPlan.literal(pack[0].instance)
                : "instance=~" + FleetQueryPlan.literal(pack.map { FleetQueryPlan.escapedForRegex($0.instance) }.joined(separator: "|"))
            return ["job=" + FleetQueryPlan.literal(pack.first?.job ?? ""), instance]
        }
    }

    /// What one query asks for: everything in `scope`, some exporters
    /// (of one job), or some hosts.
    enum Chunk {
        case whole
        case exporters([Exporter])
        case hosts([Hosts])
    }

    let query: FleetSnapshotQuery
    let instances: VectorAnswer
    let probeSeries: Bool
    let rows: ChunkRows
    /// Queries asked so far, the instances' first.
    var asked = 1
    /// The exporters the count named: what a whole fleet too large for
    /// one answer is split into.
    var exporters: [Exporter] = []
    /// The exporter being read by its hosts, as matchers; none at first.
    var scope: [String] = []
    /// Every host of `scope` the count named, once it has: what the
    /// scope's rows too large for one answer are split into.
    var counted: [Hosts]?

    /// `--match`'s matchers, the scope's and `more`.
    func matchers(_ more: [String] = []) -> String {
        ([query.selector] + scope + more).filter { !$0.isEmpty }.joined(separator: ",")
    }

    init(query: FleetSnapshotQuery, instances: VectorAnswer, probeSeries: Bool, progress: (@Sendable (FleetReadProgress) -> Void)?) {
        self.query = query
        // Only what was asked for: a server that answers every query alike
        // must not have its host series read twice.
        let names = Set(FleetSnapshotQuery.instanceFamilies.map(\.rawValue))
        self.instances = VectorAnswer(samples: instances.samples.filter { names.contains($0.name) }, skipped: instances.skipped)
        self.probeSeries = probeSeries
        rows = ChunkRows(instances: self.instances.samples, probeSeries: probeSeries, progress: progress)
    }

    /// Every row, in chunks of whole exporters of one job, from each
    /// exporter's count of rows; an exporter larger than a chunk by its hosts.
    mutating func readByExporter() -> FleetQueryProblem? {
        switch ask(FleetSnapshotQuery.exporterCountQuery(extra: query.selector)).flatMap({
            FleetQuery.vector(body: $0.body, status: $0.status)
        }) {
        case .failure(let problem) where problem == FleetQuery.tooLarge(query.maximumAnswer): return readByHost()
        case .failure(let problem): return problem
        case .success(let answer):
            exporters = answer.samples.map { sample in
                Exporter(job: sample.labels["job"] ?? "", instance: sample.labels["instance"] ?? "", rows: Self.rowCount(sample))
            }
            .sorted { ($0.job, $0.instance) < ($1.job, $1.instance) }
        }
        let total = exporters.reduce(0) { $0 + $1.rows }
        rows.counted(total)
        if total * FleetSnapshotQuery.seriesPerRow <= query.seriesPerChunk { return fetch(.whole) }
        return read(exporters)
    }

    /// `exporters`, packed into chunks of one job that fit.
    private mutating func read(_ exporters: [Exporter]) -> FleetQueryProblem? {
        var pack: [Exporter] = []
        var packed = 0
        for exporter in exporters {
            let perRow = rows.seriesPerRow
            if exporter.rows * perRow > query.seriesPerChunk {
                if let problem = flush(&pack) { return problem }
                packed = 0
                if let problem = readByHost(of: exporter) { return problem }
                continue
            }
            // An empty instance is asked for alone: beside names, the empty
            // alternative would have Prometheus test every instance.
            if exporter.instance.isEmpty || pack.first.map({ $0.job != exporter.job || $0.instance.isEmpty }) == true
                || (packed + exporter.rows) * perRow > query.seriesPerChunk
            {
                if let problem = flush(&pack) { return problem }
                packed = 0
            }
            pack.append(exporter)
            packed += exporter.rows
        }
        return flush(&pack)
    }

    /// One exporter's rows, by its hosts.
    private mutating func readByHost(of exporter: Exporter) -> FleetQueryProblem? {
        scope = Exporter.matchers([exporter])
        counted = nil
        defer {
            scope = []
            counted = nil
        }
        return readByHost()
    }

    /// Every host of the scope, in chunks of hosts named exactly, from each
    /// host's count of rows; by prefixes when the count is more than one answer.
    mutating func readByHost() -> FleetQueryProblem? {
        let hosts: [(name: String, rows: Int)]
        // The answer's samples go once read: only the names and counts stay.
        switch ask(FleetSnapshotQuery.rowCountQuery(extra: matchers())).flatMap({
            FleetQuery.vector(body: $0.body, status: $0.status)
        }).map(Self.rowsByHost) {
        case .failure(let problem) where problem == FleetQuery.tooLarge(query.maximumAnswer):
            return visit(prefix: "", top: true)
        case .failure(let problem): return problem
        case .success(let answer): hosts = answer
        }
        let total = hosts.reduce(0) { $0 + $1.rows }
        counted = hosts.map { .named($0.name) }
        if total * FleetSnapshotQuery.seriesPerRow <= query.seriesPerChunk { return fetch(.whole) }
        var pack: [Hosts] = []
        var packed = 0
        for host in hosts {
            let perRow = rows.seriesPerRow
            // Series without a host are asked for alone: beside names, the
            // empty alternative would have Prometheus test every host name.
            if host.name.isEmpty || (packed + host.rows) * perRow > query.seriesPerChunk {
                if let problem = flush(&pack) { return problem }
                packed = 0
            }
            pack.append(.named(host.name))
            packed += host.name.isEmpty ? query.seriesPerChunk : host.rows
        }
        return flush(&pack)
    }

    /// Each host's rows, by name.
    private static func rowsByHost(_ counts: VectorAnswer) -> [(name: String, rows: Int)] {
        counts.samples.map { sample in (name: sample.labels["host"] ?? "", rows: rowCount(sample)) }.sorted { $0.name < $1.name }
    }

    /// A count of rows; counts are the server's word: bounded, so that
    /// sums and products cannot overflow.
    private static func rowCount(_ sample: VectorSample) -> Int {
        min(max(WholeNumber.clamped(sample.value), 0), 1 << 30)
    }

    /// Every host starting with `prefix`, in chunks that fit; `top`: the
    /// whole fleet, asked for without a host matcher when it fits in one;
    /// `width`: how many characters the count groups by, doubled (up to
    /// 8) after a count whose hosts all shared the next ones.
    mutating func visit(prefix: String, top: Bool = false, width: Int = 2) -> FleetQueryProblem? {
        guard prefix.count <= PrometheusVector.maximumLabelLength else {
            return FleetQueryProblem(
                "host names starting with \(PrometheusVector.bounded(prefix)) cannot be split into answers under \(FleetQuery.size(query.maximumAnswer))"
            )
        }
        let counts: VectorAnswer
        switch ask(query.countQuery(prefix: prefix, width: width, extra: matchers())).flatMap({
            FleetQuery.vector(body: $0.body, status: $0.status)
        }) {
        case .failure(let problem): return problem
        case .success(let answer): counts = answer
        }
        // Counts are the server's word: bounded, so that sums cannot overflow.
        let groups = counts.samples.map { sample in
            (next: sample.labels[FleetSnapshotQuery.nextLabel] ?? "", count: min(max(WholeNumber.clamped(sample.value), 0), 1 << 40))
        }
        .sorted { $0.next < $1.next }
        let total = groups.reduce(0) { $0 + $1.count }
        if top, total <= query.seriesPerChunk { return fetch(.whole) }
        // Every host under one longer prefix: the next count looks further.
        let shared = groups.count == 1 && groups[0].next.unicodeScalars.count == width
        var pack: [Hosts] = []
        var packed = 0
        for group in groups {
            let hosts: Hosts =
                group.next.unicodeScalars.count < width ? .named(prefix + group.next) : .starting(prefix + group.next)
            if group.count > query.seriesPerChunk, case .starting(let longer) = hosts {
                if let problem = flush(&pack) { return problem }
                packed = 0
                if let problem = visit(prefix: longer, width: shared ? min(width * 2, 8) : 2) { return problem }
                continue
            }
            if packed + group.count > query.seriesPerChunk {
                if let problem = flush(&pack) { return problem }
                packed = 0
            }
            pack.append(hosts)
            packed += group.count
        }
        return flush(&pack)
    }

    /// One query, within the budget of `query.maximumQueries`.
    private mutating func ask(_ promQL: String) -> Result<(body: Data, status: Int), FleetQueryProblem> {
        if let problem = rows.problem { return .failure(problem) }
        guard asked < query.maximumQueries else {
            return .failure(
                FleetQueryProblem(
                    "Prometheus' counts split the fleet into more than \(query.maximumQueries) queries: not read (narrow it with --match)"
                ))
        }
        asked += 1
        return query.transfer(promQL)
    }

    private mutating func flush(_ pack: inout [Hosts]) -> FleetQueryProblem? {
        defer { pack.removeAll() }
        return pack.isEmpty ? nil : fetch(.hosts(pack))
    }

    private mutating func flush(_ pack: inout [Exporter]) -> FleetQueryProblem? {
        defer { pack.removeAll() }
        return pack.isEmpty ? nil : fetch(.exporters(pack))
    }

    /// The chunk's selector: the scope's series of the host families.
    private func selector(_ chunk: Chunk) -> String {
        let families = query.hostFamilies
        switch chunk {
        case .whole: return FleetSnapshotQuery.selector(families, host: nil, extra: matchers())
        case .hosts(let pack):
            return FleetSnapshotQuery.selector(families, host: pack.map(\.pattern).joined(separator: "|"), extra: matchers())
        case .exporters(let pack): return FleetSnapshotQuery.selector(families, host: nil, extra: matchers(Exporter.matchers(pack)))
        }
    }

    /// One chunk's rows; one too large for an answer is asked for again in
    /// smaller chunks.
    private mutating func fetch(_ chunk: Chunk) -> FleetQueryProblem? {
        switch ask(selector(chunk)) {
        case .success(let answer):
            rows.add(answer.body, status: answer.status)
            return nil
        case .failure(let problem) where problem == FleetQuery.tooLarge(query.maximumAnswer):
            let pack: [Hosts]
            switch chunk {
            case .whole:
                if scope.isEmpty, !exporters.isEmpty { return read(exporters) }
                guard let counted, !counted.isEmpty else { return visit(prefix: "") }
                return fetch(.hosts(counted))
            case .exporters(let exporters):
                if exporters.count > 1 {
                    return fetch(.exporters(Array(exporters[..<(exporters.count / 2)])))
                        ?? fetch(.exporters(Array(exporters[(exporters.count / 2)...])))
                }
                return readByHost(of: exporters[0])
            case .hosts(let hosts): pack = hosts
            }
            if pack.count > 1 {
                return fetch(.hosts(Array(pack[..<(pack.count / 2)]))) ?? fetch(.hosts(Array(pack[(pack.count / 2)...])))
            }
            switch pack[0] {
            case .starting(let prefix): return visit(prefix: prefix)
            case .named(let name):
                return FleetQueryProblem(
                    "the series of host \(PrometheusVector.bounded(name)) alone are more than \(FleetQuery.size(query.maximumAnswer)) (narrow it with --match)"
                )
            }
        case .failure(let problem):
            return problem
        }
    }

    /// The probe's time of each row whose probe failed (its report's
    /// `elapsed_ms`), asked for by the rows' host names, as many at a time
    /// as a chunk has rows.
    mutating func readFailedProbes(of hosts: inout [FleetHost]) -> FleetQueryProblem? {
        let failed = hosts.indices.filter { hosts[$0].failure != nil }
        guard !failed.isEmpty else { return nil }
        let names = Array(Set(failed.map { hosts[$0].host })).sorted()
        var durations: [FleetSnapshot.RowKey: TimeInterval] = [:]
        let perQuery = max(1, query.seriesPerChunk)
        var start = 0
        while start < names.count {
            let pack = Array(names[start..<min(start + perQuery, names.count)])
            if let problem = readDurations(of: pack, into: &durations) { return problem }
            start += pack.count
        }
        for index in failed { hosts[index].elapsed = durations[FleetSnapshot.rowKey(hosts[index])] }
        return nil
    }

    /// `pinwatch_probe_duration_seconds` of the hosts named `names`, by
    /// row; halved until each answer fits.
    private mutating func readDurations(of names: [String], into durations: inout [FleetSnapshot.RowKey: TimeInterval])
        -> FleetQueryProblem?
    {
        let hosts = "host=~" + FleetQueryPlan.literal(FleetQueryPlan.alternation(names))
        let promQL = FleetQueryPlan(selector: query.selector, probeSeries: true).series([.probeDuration], [hosts])
        switch ask(promQL).flatMap({ FleetQuery.vector(body: $0.body, status: $0.status) }) {
        case .success(let answer):
            for sample in answer.samples where sample.name == MetricFamilyName.probeDuration.rawValue && sample.value >= 0 {
                guard let host = sample.labels["host"], let port = sample.labels["port"].flatMap(Int.init) else { continue }
                durations[FleetSnapshot.rowKey(sample.labels, host: host, port: port)] = sample.value
            }
            return nil
        case .failure(let problem) where problem == FleetQuery.tooLarge(query.maximumAnswer) && names.count > 1:
            return readDurations(of: Array(names[..<(names.count / 2)]), into: &durations)
                ?? readDurations(of: Array(names[(names.count / 2)...]), into: &durations)
        case .failure(let problem):
            return problem
        }
    }

    /// Every chunk's rows once all are read, or why one could not be.
    func fleet() -> Result<FleetSnapshot, FleetQueryProblem> {
        // Sorted where they lie: a sorted copy beside them was the read's
        // peak of memory (Benchmarks/README.md).
        var (hosts, skipped, probeRows, problem) = rows.finish()
        if let problem { return .failure(problem) }
        FleetSnapshot.sortInRowOrder(&hosts)
        var fleet = FleetSnapshot(VectorAnswer(samples: instances.samples), probeSeries: probeSeries)
        fleet.disagreeing = FleetSnapshot.disagreeing(hosts)
        fleet.hosts = hosts
        fleet.skipped = instances.skipped + skipped
        fleet.probeRows = probeRows
        return .success(fleet)
    }
}
