import Dispatch
import Foundation
import Glibc
import PinwatchCore

/// Probes TLS hosts: resolve, connect (through a proxy if any), handshake,
/// collect the chain, with at most `concurrency` sockets open at once.
///
/// Built for thousands of hosts per cycle: probes are non-blocking state
/// machines on two epoll event loops, names are resolved on a small thread
/// pool, and TLS contexts are shared across probes and cycles. Create one
/// engine and reuse it. `@unchecked Sendable`: all state lives in the
/// scheduler, which guards it.
package final class ProbeEngine: @unchecked Sendable {
    /// Two loops match the two cores the product targets; handshakes are
    /// CPU-bound, so more loops would only contend.
    static let eventLoopCount = 2
    /// Lookups block a thread each; eight keep a few slow zones from
    /// holding up the rest, and cost nothing while idle.
    static let resolverThreads = 8

    private let scheduler: ProbeScheduler

    /// `expectedTargets`, when known, caps the threads: a `check` of one
    /// host needs one loop and one resolver, not ten threads to start and
    /// map stacks for (a measurable part of its start-up). `now` is the
    /// clock certificates are verified against and cached verdicts age by.
    package init(concurrency: Int, expectedTargets: Int? = nil, now: @escaping @Sendable () -> Date = { Date() }) {
        FileDescriptorLimit.raiseToHardLimit()
        // Every socket write here passes MSG_NOSIGNAL (OpenSSL only sees
        // memory BIOs); ignoring SIGPIPE as well keeps a write elsewhere in
        // the process from killing every probe in flight.
        signal(SIGPIPE, SIG_IGN)
        let parallel = max(1, min(concurrency, expectedTargets ?? concurrency))
        scheduler = ProbeScheduler(
            concurrency: concurrency, loopCount: min(Self.eventLoopCount, parallel),
            resolverThreads: min(Self.resolverThreads, parallel), now: now)
    }

    deinit {
        scheduler.shutdown()
    }

    /// Chains served from the verified-chain cache, and verified in full:
    /// for tests and benchmarks.
    package var verifiedChainCounts: (hits: Int, anchored: Int, misses: Int) { scheduler.contexts.verifiedChainCounts }

    /// Probes every target with at most `concurrency` in flight; `onResult` is called (from an internal
    /// thread) as each probe finishes, with the target's index; `onFinish` once after the last one.
    @discardableResult
    package func start(
        _ targets: [ProbeTarget],
        onResult: @escaping @Sendable (Int, ProbeResult) -> Void,
        onFinish: @escaping @Sendable () -> Void
    ) -> ProbeCycle {
        start(targets, deliversInline: false, onResult: onResult, onFinish: onFinish)
    }

    /// `deliversInline`: `onResult` runs on the event loop's thread under
    /// the cycle's lock, for a caller whose `onResult` only stores and
    /// hands on (the poller, which finishes reports on a queue of its own):
    /// no queue wake-up per result.
    package func start(
        _ targets: [ProbeTarget], deliversInline: Bool,
        onResult: @escaping @Sendable (Int, ProbeResult) -> Void,
        onFinish: @escaping @Sendable () -> Void
    ) -> ProbeCycle {
        let scheduler = self.scheduler
        let cycle = ProbeCycle(
            count: targets.count, onResult: onResult, onFinish: onFinish, deliversInline: deliversInline,
            cancelInFlight: { scheduler.cancel($0) })
        if targets.isEmpty {
            cycle.finishWithoutTargets()
            return cycle
        }
        var jobs: [ProbeJob] = []
        var unusable: [(Int, ProbeResult)] = []
        for (index, target) in targets.enumerated() {
            if let route = target.proxy, let problem = route.problem {
                // No socket to open: the proxy the client would meet cannot be used.
                unusable.append((index, .failed(ProbeFailure(kind: .proxy, message: problem), elapsed: 0, proxy: route)))
            } else {
                jobs.append(ProbeJob(target: target, index: index, cycle: cycle))
            }
        }
        scheduler.enqueue(jobs)
        for (index, result) in unusable {
            cycle.complete(index: index, result: result)
        }
        return cycle
    }

    /// Every address `host` resolves to, as text, on the probes' resolver
    /// pool (bounded by `timeout`), for `addresses: all`; nil when the
    /// lookup fails, so that the probe of the name reports why.
    package func resolveAddresses(
        host: String, port: Int, timeout: TimeInterval, completion: @escaping @Sendable ([String]?) -> Void
    ) {
        var bare = host
        if bare.hasPrefix("["), bare.hasSuffix("]") { bare = String(bare.dropFirst().dropLast()) }
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(max(0, timeout) * 1_000_000_000)
        scheduler.resolve(host: bare, port: port, deadline: deadline) { answer in
            switch answer {
            case .addresses(let found): completion(found.map(\.ipText))
            case .failed, .unavailable: completion(nil)
            }
        }
    }

    /// Blocking convenience: all results in target order.
    package func run(_ targets: [ProbeTarget]) -> [ProbeResult] {
        let collected = ResultSlots(count: targets.count)
        let done = DispatchSemaphore(value: 0)
        // Storing a result is cheap and locked: done on the loops' threads.
        let cycle = start(targets, deliversInline: true, onResult: { collected.set($0, $1) }, onFinish: { done.signal() })
        // Every probe ends by its own deadline; this bound (all deadlines
        // back to back, plus slack) only guards against an engine bug.
        let bound = targets.reduce(30) { $0 + max(0, $1.timeout) }
        if done.wait(timeout: .now() + bound) == .timedOut {
            cycle.cancel()
            _ = done.wait(timeout: .now() + 5)
        }
        return collected.results(for: targets)
    }
}

/// Results stored by the event loops for `run`.
private final class ResultSlots: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [ProbeResult?]

    init(count: Int) {
        slots = Array(repeating: nil, count: count)
    }

    func set(_ index: Int, _ result: ProbeResult) {
        lock.lock()
        slots[index] = result
        lock.unlock()
    }

    func results(for targets: [ProbeTarget]) -> [ProbeResult] {
        lock.lock()
        defer { lock.unlock() }
        return slots.map { slot in
            slot ?? ProbeResult.failed(ProbeFailure(kind: .timeout, message: "probe did not finish"), elapsed: 0)
        }
    }
}
