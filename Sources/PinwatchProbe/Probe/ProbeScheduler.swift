import Foundation
import PinwatchCore

/// Admits probes so that no more than `concurrency` are in flight across
/// every cycle of one engine, and spreads them over the event loops.
///
/// `@unchecked Sendable`: the queue and counters are guarded by `lock`.
final class ProbeScheduler: @unchecked Sendable {
    private let concurrency: Int
    private let lock = NSLock()
    private var queue: [ProbeJob] = []
    private var queueHead = 0
    private var inFlight = 0
    private var nextLoop = 0
    private var loops: [ProbeEventLoop] = []
    private let loopCount: Int
    /// Why no loop could start, for the jobs that then fail.
    private var loopFailure: ProbeFailure?
    private let resolver: NameResolver
    let contexts: TLSContextCache

    init(concurrency: Int, loopCount: Int, resolverThreads: Int, now: @escaping @Sendable () -> Date) {
        contexts = TLSContextCache(now: now)
        self.concurrency = max(1, concurrency)
        self.loopCount = max(1, loopCount)
        resolver = NameResolver(threads: resolverThreads)
        startMissingLoopsLocked()
    }

    /// Fewer loops only costs speed. With none (descriptors ran out while
    /// the engine was made, say), every cycle tries again, so an engine
    /// made during a shortage recovers once it passes.
    private func startMissingLoopsLocked() {
        while loops.count < loopCount {
            do {
                let loop = try ProbeEventLoop(
                    name: "pinwatch-probe-\(loops.count)", resolver: resolver, contexts: contexts,
                    completion: { [weak self] job, result, loop in self?.completed(job, result: result, on: loop) })
                loops.append(loop)
            } catch {
                loopFailure = error as? ProbeFailure
                return
            }
        }
    }

    private var loopStartFailure: ProbeFailure {
        lock.lock()
        defer { lock.unlock() }
        return loopFailure ?? ProbeFailure(kind: .tls, message: "the probe engine could not start its event loops")
    }

    func enqueue(_ jobs: [ProbeJob]) {
        lock.lock()
        if loops.isEmpty { startMissingLoopsLocked() }
        queue.append(contentsOf: jobs)
        let admitted = admitLocked()
        lock.unlock()
        launch(admitted)
    }

    func cancel(_ cycle: ProbeCycle) {
        lock.lock()
        let running = loops
        lock.unlock()
        for loop in running { loop.submit(.cancel(cycle)) }
        // Queued jobs of the cycle are dropped as they come up; nudging the
        // queue here finishes a cycle that has nothing in flight.
        lock.lock()
        let admitted = admitLocked()
        lock.unlock()
        launch(admitted)
    }

    /// A lookup on the probes' own resolver pool (`addresses: all`).
    func resolve(host: String, port: Int, deadline: UInt64, completion: @escaping (NameResolver.Answer) -> Void) {
        resolver.resolve(host: host, port: port, deadline: deadline, completion: completion)
    }

    func shutdown() {
        lock.lock()
        let running = loops
        lock.unlock()
        for loop in running { loop.submit(.stop) }
        resolver.stop()
    }

    private func completed(_ job: ProbeJob, result: ProbeResult?, on loop: ProbeEventLoop) {
        job.cycle.complete(index: job.index, result: result)
        lock.lock()
        inFlight -= 1
        let admitted = admitLocked(preferring: loop)
        lock.unlock()
        launch(admitted)
    }

    /// Takes jobs off the queue while slots are free; the caller launches
    /// them after unlocking. Jobs of cancelled cycles are completed here
    /// without being probed.
    ///
    /// A slot freed by a loop goes back to that loop: its socket was just
    /// closed there, so the next connect follows the close in order and
    /// the number of open sockets never exceeds `concurrency`, as a server
    /// sees it too. Other slots are spread round-robin.
    private func admitLocked(preferring preferred: ProbeEventLoop? = nil) -> [(ProbeJob, ProbeEventLoop?)] {
        var preferred = preferred
        var admitted: [(ProbeJob, ProbeEventLoop?)] = []
        while queueHead < queue.count {
            let job = queue[queueHead]
            if !job.cycle.isCancelled && inFlight >= concurrency { break }
            queueHead += 1
            if job.cycle.isCancelled || loops.isEmpty {
                admitted.append((job, nil))
                continue
            }
            inFlight += 1
            if let loop = preferred {
                admitted.append((job, loop))
                preferred = nil
            } else {
                admitted.append((job, loops[nextLoop % loops.count]))
                nextLoop &+= 1
            }
        }
        // A job holds its cycle, and the cycle its caller's closures and
        // everything they captured: a drained queue lets go of them at
        // once (kept, they were up to 1,024 jobs of finished cycles, the
        // soak's 90-second sawtooth of the live heap). A queue that never
        // drains is compacted now and then.
        if queueHead == queue.count {
            queue.removeAll(keepingCapacity: true)
            queueHead = 0
        } else if queueHead > 1024 && queueHead * 2 > queue.count {
            queue.removeFirst(queueHead)
            queueHead = 0
        }
        return admitted
    }

    private func launch(_ admitted: [(ProbeJob, ProbeEventLoop?)]) {
        for (job, loop) in admitted {
            guard let loop else {
                let result: ProbeResult? = job.cycle.isCancelled ? nil : ProbeResult.failed(loopStartFailure, elapsed: 0)
                job.cycle.complete(index: job.index, result: result)
                continue
            }
            var started = job
            started.admittedAt = DispatchTime.now().uptimeNanoseconds
            loop.submit(.start(started))
        }
    }
}
