import Foundation
import PinwatchCore
import PinwatchProbe

/// One poll over every configured host, turned into verdicts in
/// configuration order: what `snapshot` and `check` print.
enum PollCycle {
    static func run(_ config: Config, environment: [String: String] = ProcessInfo.processInfo.environment) -> [HostReport] {
        let targets = config.probeTargets(environment: environment)
        let engine = ProbeEngine(concurrency: config.concurrency)
        let results = engine.run(targets)
        let now = Date()
        return zip(config.hosts, results).map { host, result in
            Verdict.report(for: host, result: result, now: now, warnDays: config.warnDays, criticalDays: config.criticalDays)
        }
    }
}
