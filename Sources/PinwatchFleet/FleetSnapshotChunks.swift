import Foundation

/// Chunks' answers read into rows off the reading thread,
/// `answersReadAtOnce` at a time, while the next chunk is asked for; the
/// reader waits while that many are being read, so at most one more
/// answer is held at once.
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

    private let progress: (@Sendable (FleetReadProgress) -> Void)?
    private var rowsCounted = 0

    init(instances: [VectorSample], probeSeries: Bool, progress: (@Sendable (FleetReadProgress) -> Void)?) {
        self.instances = instances
        self.probeSeries = probeSeries
        self.progress = progress
    }

    /// The rows Prometheus counted, for `progress`.
    func counted(_ rows: Int) {
        lock.lock()
        rowsCounted = rows
        lock.unlock()
    }

    /// The most series per row an answer read so far held, at least
    /// `FleetSnapshotQuery.seriesPerRow`: what the next chunk is sized by.
    var seriesPerRow: Int {
        lock.lock()
        defer { lock.unlock() }
        return mostSeriesPerRow
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
                // Under the lock: two chunks read at once report in turn, their counts rising.
                progress?(FleetReadProgress(rows: hosts.count + probeRows, counted: rowsCounted))
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
