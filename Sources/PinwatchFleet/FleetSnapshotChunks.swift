import Foundation

/// Chunks' answers read into rows off the asking threads,
/// `answersReadAtOnce` at a time, while the next chunks are asked for; an
/// asking thread waits with its answer while that many are being read, so
/// at most `queriesAtOnce` more answers are held at once.
final class ChunkRows: @unchecked Sendable {
    private let instances: [VectorSample]
    private let probeSeries: Bool
    private let lock = NSLock()
    private let slots = DispatchSemaphore(value: FleetSnapshotQuery.answersReadAtOnce)
    private let group = DispatchGroup()
    private let queue = DispatchQueue(label: "pinwatch.fleet-chunks", attributes: .concurrent)
    private var hosts: [FleetHost] = []
    private var skipped = 0
    private var probeRows = 0
    private var firstProblem: FleetQueryProblem?
    private var mostSeriesPerRow = FleetSnapshotQuery.seriesPerRow
    /// Answers handed to `add` and not yet read into rows.
    private var answers = 0
    private var mostAnswers = 0

    init(instances: [VectorSample], probeSeries: Bool) {
        self.instances = instances
        self.probeSeries = probeSeries
    }

    /// The most series per row an answer read so far held, at least
    /// `FleetSnapshotQuery.seriesPerRow`: what the next chunk is sized by.
    var seriesPerRow: Int {
        lock.lock()
        defer { lock.unlock() }
        return mostSeriesPerRow
    }

    /// A chunk that could not be read, asked for off the planning thread.
    func fail(_ problem: FleetQueryProblem) {
        lock.lock()
        if firstProblem == nil { firstProblem = problem }
        lock.unlock()
    }

    /// The first answer that could not be read.
    var problem: FleetQueryProblem? {
        lock.lock()
        defer { lock.unlock() }
        return firstProblem
    }

    /// The most answers held at once: being read, and one waiting.
    var mostHeld: Int {
        lock.lock()
        defer { lock.unlock() }
        return mostAnswers
    }

    func add(_ body: Data, status: Int) {
        lock.lock()
        answers += 1
        mostAnswers = max(mostAnswers, answers)
        lock.unlock()
        slots.wait()
        queue.async(group: group) { [self] in
            defer {
                lock.lock()
                answers -= 1
                lock.unlock()
                slots.signal()
            }
            switch FleetQuery.vector(body: body, status: status) {
            case .success(let answer):
                let chunk = FleetSnapshot(
                    VectorAnswer(samples: instances + answer.samples, skipped: answer.skipped), probeSeries: probeSeries)
                let rows = chunk.hosts.count + chunk.probeRows
                lock.lock()
                hosts += chunk.hosts
                skipped += chunk.skipped
                probeRows += chunk.probeRows
                if rows > 0 { mostSeriesPerRow = min(max(mostSeriesPerRow, answer.samples.count / rows + 1), 1 << 20) }
                lock.unlock()
            case .failure(let problem):
                lock.lock()
                if firstProblem == nil { firstProblem = problem }
                lock.unlock()
            }
        }
    }

    /// The rows, handed over: none are kept here, so the caller's are
    /// the only reference to them.
    func finish() -> (hosts: [FleetHost], skipped: Int, probeRows: Int, problem: FleetQueryProblem?) {
        group.wait()
        lock.lock()
        defer { lock.unlock() }
        let rows = hosts
        hosts = []
        return (rows, skipped, probeRows, firstProblem)
    }
}

/// Chunks' queries, `queriesAtOnce` in flight, each counted against the
/// read's budget of queries (the instances' first).
final class ChunkQueries: @unchecked Sendable {
    private let budget: Int
    private let lock = NSLock()
    private var asked = 1
    private let slots = DispatchSemaphore(value: FleetSnapshotQuery.queriesAtOnce)
    private let group = DispatchGroup()
    private let queue = DispatchQueue(label: "pinwatch.fleet-queries", attributes: .concurrent)

    init(budget: Int) {
        self.budget = budget
    }

    /// One query more, if the budget has room.
    func take() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard asked < budget else { return false }
        asked += 1
        return true
    }

    /// `work` asks for a chunk; the caller waits while `queriesAtOnce` are.
    func ask(_ work: @escaping @Sendable () -> Void) {
        slots.wait()
        queue.async(group: group) { [self] in
            defer { slots.signal() }
            work()
        }
    }

    func wait() {
        group.wait()
    }
}
