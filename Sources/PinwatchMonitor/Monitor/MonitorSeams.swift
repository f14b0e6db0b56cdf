import Dispatch
import Foundation
import PinwatchCore

/// The poll pipeline as a `Monitor` drives it: `HostPoller` in the product,
/// a scripted poller in the tests.
package protocol MonitorPoller: AnyObject {
    var config: Config { get }
    /// Polls every host once: batches on `queue`, then the finish once.
    func pollCycle(
        on queue: DispatchQueue, onReports: @escaping (HostPoller.Batch) -> Void,
        onFinish: @escaping (HostPoller.CycleOutcome) -> Void)
}

extension HostPoller: MonitorPoller {
    package func pollCycle(
        on queue: DispatchQueue, onReports: @escaping (HostPoller.Batch) -> Void,
        onFinish: @escaping (HostPoller.CycleOutcome) -> Void
    ) {
        startCycle(on: queue, onReports: onReports, onFinish: onFinish)
    }
}

/// Where transitions go: `HookRunner` in the product.
package protocol MonitorHooks: AnyObject {
    func run(for transitions: [SeverityTransition])
    func replaceHooks(_ hooks: [HookCommand])
    /// What happened to runs since the start (see `HookRunner.Counts`).
    var currentCounts: HookRunner.Counts { get }
}

extension HookRunner: MonitorHooks {}

/// The interval's ticks: a Dispatch timer in the product, fired by hand in
/// the tests. Every tick is delivered on the monitor's queue.
package protocol MonitorTimer: AnyObject {
    func setHandler(_ handler: @escaping () -> Void)
    /// The first tick after `delay` seconds, then one every `interval`;
    /// replaces any earlier plan.
    func schedule(after delay: TimeInterval, repeating interval: TimeInterval)
}

/// A `DispatchSourceTimer` on the monitor's queue.
package final class DispatchMonitorTimer: MonitorTimer {
    private let timer: DispatchSourceTimer
    private var resumed = false

    package init(queue: DispatchQueue) {
        timer = DispatchSource.makeTimerSource(queue: queue)
    }

    package func setHandler(_ handler: @escaping () -> Void) {
        timer.setEventHandler(handler: handler)
    }

    package func schedule(after delay: TimeInterval, repeating interval: TimeInterval) {
        timer.schedule(deadline: .now() + max(0, delay), repeating: interval, leeway: .milliseconds(100))
        guard !resumed else { return }
        resumed = true
        timer.resume()
    }
}
