import Dispatch
import Foundation
import PinwatchCore
import PinwatchSystem

/// Runs the configured hooks for severity transitions, off the polling
/// path: one runner for the life of the process (a reload changes its
/// hooks, not its cap), a bounded number at once, each with its timeout,
/// failures retried with backoff a bounded number of times. Polling never
/// waits for a hook.
///
/// What waits is one run per hook and host: a newer event for a host
/// replaces the one still waiting (a flapping fleet cannot queue runs
/// faster than they end), and past `queueLimit` the oldest waiting run is
/// dropped. Both are counted (`counts`) for the caller to log.
///
/// Waiting runs are taken by `parallelism` threads of the runner's own,
/// each sleeping on a condition until a run is waiting or a retry is due:
/// no timer, so no descriptor, is needed to go on when descriptors run
/// out. Not a dispatch queue: an `async` from a thread libdispatch does not
/// own allocates a continuation that the worker running it keeps in its
/// cache, and a hook storm over hours grew the heap by one a run
/// (Benchmarks/README.md, "Soak").
///
/// `@unchecked Sendable`: every member below `condition` is guarded by it.
package final class HookRunner: @unchecked Sendable {
    package struct Report: Sendable {
        package var command: String
        package var host: String
        package var attempt: Int
        package var outcome: String
        package var succeeded: Bool
        package var stderr: String
    }

    /// What happened to events since the runner started.
    package struct Counts: Sendable, Equatable {
        package var running = 0
        package var waiting = 0
        /// Events that replaced one still waiting for the same hook and host.
        package var merged = 0
        /// Runs dropped for the queue's limit or because their hook was
        /// removed by a reload.
        package var dropped = 0
        /// Runs that could not start (no descriptor, no such program, …).
        package var failedStarts = 0

        package init() {}
    }

    /// Runs at once, whatever the number of reloads; more wait their turn.
    package static let parallelism = 4
    /// Attempts per event and hook, the first included.
    package static let attempts = 3

    private struct Key: Hashable {
        var hook: HookCommand
        var host: String
    }

    private struct Job {
        var hook: HookCommand
        var transition: SeverityTransition
        var attempt: Int
        var due: Date
    }

    private let report: @Sendable (Report) -> Void
    /// Carries reports to the caller's queue when it names one: an `async`
    /// from the runner's threads would allocate a continuation a report.
    private let reportWakeup: QueueWakeup?
    /// The process's, of which a hook gets `HookEnvironment`'s share.
    private let environment: [String: String]
    private let backoff: TimeInterval
    private let queueLimit: Int
    private let failureReportInterval: TimeInterval
    private let condition = NSCondition()
    private var hooks: [HookCommand]
    private var waiting: [Key: Job] = [:]
    /// Waiting keys, oldest first.
    private var order: [Key] = []
    private var counts = Counts()
    private var runningGroups: Set<pid_t> = []
    private var workersStarted = false
    private var stopped = false
    private var lastFailureReport: Date?
    private var failuresNotReported = 0

    /// `report` is called after every attempt, except failed starts past
    /// the first in `failureReportInterval`, which are counted in the next
    /// one reported: on `reportQueue`, in order, when given, else on the
    /// runner's thread that ran the hook.
    package init(
        hooks: [HookCommand], environment: [String: String] = ProcessEnvironment.current, backoff: TimeInterval = 1,
        queueLimit: Int = 10_000, failureReportInterval: TimeInterval = 10, reportQueue: DispatchQueue? = nil,
        report: @escaping @Sendable (Report) -> Void
    ) {
        self.hooks = hooks
        self.environment = environment
        self.backoff = backoff
        self.queueLimit = queueLimit
        self.failureReportInterval = failureReportInterval
        self.report = report
        reportWakeup = reportQueue.map(QueueWakeup.init(queue:))
    }

    /// A reload's hooks: runs waiting for a hook that stays keep their
    /// place; those for a removed hook are dropped.
    package func replaceHooks(_ newHooks: [HookCommand]) {
        condition.lock()
        defer { condition.unlock() }
        hooks = newHooks
        let kept = Set(newHooks)
        for key in order where !kept.contains(key.hook) {
            waiting[key] = nil
            counts.dropped += 1
        }
        order.removeAll { waiting[$0] == nil }
        counts.waiting = waiting.count
    }

    package func run(for transitions: [SeverityTransition]) {
        guard !transitions.isEmpty else { return }
        condition.lock()
        defer { condition.unlock() }
        guard !stopped, !hooks.isEmpty else { return }
        for transition in transitions {
            for hook in hooks {
                enqueue(Job(hook: hook, transition: transition, attempt: 1, due: Date()), replacing: true)
            }
        }
        startWorkersIfNeeded()
        condition.broadcast()
    }

    package var currentCounts: Counts {
        condition.lock()
        defer { condition.unlock() }
        return counts
    }

    /// At exit: nothing more starts, running hooks are killed with their
    /// process groups; what was running and waiting is returned.
    @discardableResult
    package func stop() -> Counts {
        condition.lock()
        defer { condition.unlock() }
        stopped = true
        for group in runningGroups { kill(-group, SIGKILL) }
        condition.broadcast()
        return counts
    }

    // MARK: Queue (under `condition`)

    /// A retry does not replace a newer event waiting for the same hook
    /// and host; a new event does replace what waits.
    private func enqueue(_ job: Job, replacing: Bool) {
        let key = Key(hook: job.hook, host: job.transition.report.config.identityKey)
        if waiting[key] != nil {
            guard replacing else { return }
            waiting[key] = job
            counts.merged += 1
            return
        }
        if order.count >= queueLimit {
            waiting[order.removeFirst()] = nil
            counts.dropped += 1
        }
        waiting[key] = job
        order.append(key)
        counts.waiting = waiting.count
    }

    private func startWorkersIfNeeded() {
        guard !workersStarted else { return }
        workersStarted = true
        for number in 1...Self.parallelism {
            let thread = Thread { [self] in work() }
            thread.name = "pinwatch.hooks.\(number)"
            thread.start()
        }
    }

    /// A worker thread: runs the oldest due run, one at a time, until the
    /// runner stops.
    private func work() {
        condition.lock()
        defer { condition.unlock() }
        while !stopped {
            let now = Date()
            guard let index = order.firstIndex(where: { (waiting[$0]?.due ?? now) <= now }) else {
                if let nextDue = order.lazy.compactMap({ self.waiting[$0]?.due }).min() {
                    _ = condition.wait(until: nextDue)
                } else {
                    condition.wait()
                }
                continue
            }
            let key = order.remove(at: index)
            counts.waiting = waiting.count - 1
            guard let job = waiting.removeValue(forKey: key) else { continue }
            counts.running += 1
            condition.unlock()
            execute(job)
            condition.lock()
        }
    }

    // MARK: Runs (worker threads)

    private func execute(_ job: Job) {
        let outcome = ChildProcess.run(
            job.hook.arguments, environment: HookEnvironment.entries(from: environment, allowing: job.hook.environment),
            input: job.transition.json, timeout: job.hook.timeout,
            started: { group in self.track(group) })
        let description: String
        var shouldReport = true
        if let error = outcome.spawnError {
            (shouldReport, description) = noteFailedStart("could not start: \(error)")
        } else if outcome.timedOut {
            description = "killed after its \(ConfigDuration.describe(job.hook.timeout)) timeout"
        } else {
            description = "exit \(outcome.status ?? -1)"
        }
        if shouldReport {
            let finished = Report(
                command: job.hook.arguments.first ?? "", host: job.transition.report.config.displayName, attempt: job.attempt,
                outcome: description, succeeded: outcome.succeeded, stderr: outcome.stderr)
            if let reportWakeup {
                reportWakeup.run { [report] in report(finished) }
            } else {
                report(finished)
            }
        }
        condition.lock()
        defer { condition.unlock() }
        if let group = outcome.processGroup { runningGroups.remove(group) }
        counts.running -= 1
        if !outcome.succeeded, job.attempt < Self.attempts, !stopped, hooks.contains(job.hook) {
            // 1 s, 2 s, … (scaled by `backoff`), without holding a slot.
            let delay = backoff * Double(1 << (job.attempt - 1))
            enqueue(
                Job(hook: job.hook, transition: job.transition, attempt: job.attempt + 1, due: Date().addingTimeInterval(delay)),
                replacing: false)
        }
        condition.broadcast()
    }

    private func track(_ group: pid_t) {
        condition.lock()
        defer { condition.unlock() }
        runningGroups.insert(group)
        // Stopped while this one was starting: it must not outlive us.
        if stopped { kill(-group, SIGKILL) }
    }

    /// Out of descriptors, every start fails at once: one report per
    /// `failureReportInterval`, saying how many were left unsaid.
    private func noteFailedStart(_ description: String) -> (report: Bool, description: String) {
        condition.lock()
        defer { condition.unlock() }
        counts.failedStarts += 1
        let now = Date()
        if let last = lastFailureReport, now.timeIntervalSince(last) < failureReportInterval {
            failuresNotReported += 1
            return (false, description)
        }
        lastFailureReport = now
        let unsaid = failuresNotReported
        failuresNotReported = 0
        return (true, unsaid == 0 ? description : "\(description) (\(unsaid) more failed starts not reported)")
    }
}
