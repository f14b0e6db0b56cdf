import Dispatch
import Foundation
import PinwatchCore

/// Runs the configured hooks for severity transitions, off the polling
/// path: a bounded number at once, each with its timeout, failures retried
/// with backoff a bounded number of times. Polling never waits for a hook.
///
/// `@unchecked Sendable`: the queue of waiting runs is guarded by `lock`.
public final class HookRunner: @unchecked Sendable {
    public struct Report: Sendable {
        public var command: String
        public var host: String
        public var attempt: Int
        public var outcome: String
        public var succeeded: Bool
        public var stderr: String
    }

    /// Runs at once; more wait their turn.
    public static let parallelism = 4
    /// Attempts per event and hook, the first included.
    public static let attempts = 3

    private let hooks: [HookCommand]
    private let report: @Sendable (Report) -> Void
    private let backoff: TimeInterval
    private let lock = NSLock()
    private var waiting: [(hook: HookCommand, transition: SeverityTransition, attempt: Int)] = []
    private var running = 0
    private let workers = DispatchQueue(label: "pinwatch.hooks", attributes: .concurrent)

    /// `report` is called (on a worker thread) after every attempt.
    public init(hooks: [HookCommand], backoff: TimeInterval = 1, report: @escaping @Sendable (Report) -> Void) {
        self.hooks = hooks
        self.backoff = backoff
        self.report = report
    }

    public func run(for transitions: [SeverityTransition]) {
        guard !hooks.isEmpty, !transitions.isEmpty else { return }
        lock.lock()
        for transition in transitions {
            for hook in hooks { waiting.append((hook, transition, 1)) }
        }
        lock.unlock()
        startWaiting()
    }

    private func startWaiting() {
        lock.lock()
        var started: [(hook: HookCommand, transition: SeverityTransition, attempt: Int)] = []
        while running < Self.parallelism, !waiting.isEmpty {
            started.append(waiting.removeFirst())
            running += 1
        }
        lock.unlock()
        for job in started {
            workers.async { self.execute(job.hook, job.transition, attempt: job.attempt) }
        }
    }

    private func execute(_ hook: HookCommand, _ transition: SeverityTransition, attempt: Int) {
        let outcome = ChildProcess.run(hook.arguments, input: transition.json, timeout: hook.timeout)
        let description: String
        if let error = outcome.spawnError {
            description = "could not start: \(error)"
        } else if outcome.timedOut {
            description = "killed after its \(ConfigDuration.describe(hook.timeout)) timeout"
        } else {
            description = "exit \(outcome.status ?? -1)"
        }
        report(
            Report(
                command: hook.arguments[0], host: transition.report.config.displayName, attempt: attempt,
                outcome: description, succeeded: outcome.succeeded, stderr: outcome.stderr))
        lock.lock()
        running -= 1
        lock.unlock()
        if !outcome.succeeded, attempt < Self.attempts {
            // 1 s, 2 s, … (scaled by `backoff`), without holding a slot.
            let delay = backoff * Double(1 << (attempt - 1))
            workers.asyncAfter(deadline: .now() + delay) {
                self.lock.lock()
                self.waiting.append((hook, transition, attempt + 1))
                self.lock.unlock()
                self.startWaiting()
            }
        }
        startWaiting()
    }
}
