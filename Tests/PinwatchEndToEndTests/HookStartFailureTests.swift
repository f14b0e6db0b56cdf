import Foundation
import PinwatchCore
import PinwatchMonitor
import PinwatchService
import PinwatchTestSupport
import XCTest

/// A hook that cannot start (no descriptor left) is a failure
/// to count and say, never a crash.
final class HookStartFailureTests: LocalFleetTestCase {
    private static let descriptorLimit = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    private var processes: [BackgroundProcess] = []

    override func tearDown() {
        processes.forEach { $0.stop() }
        processes.removeAll()
        super.tearDown()
    }

    /// `serve` under descriptor limits from "cannot even start" to "only
    /// the hooks fail": once listening, the exporter goes on whatever fails
    /// for want of descriptors (it used to die of a Swift runtime trap,
    /// SIGILL, in dispatchMain or at a hook's retry). The limits are a
    /// range because what a build opens at start varies.
    func testServeOutlivesHooksThatCannotStartForWantOfDescriptors() throws {
        try fleet.addRefused("down.test")
        try fleet.writeConfig(settings: ["interval: 1s", "hooks:", "  - [/bin/true]"], timeout: "1s")
        let serve = PinwatchBinary.url.deletingLastPathComponent().appendingPathComponent("pinwatch-serve").path
        let config = fleet.directory.appendingPathComponent("pinwatch.yaml").path
        var byLimit: [(limit: Int, process: BackgroundProcess)] = []
        // Descriptors this test process lets its children inherit are
        // closed first, so the limits mean the same on every machine.
        let wrapper = """
            for fd in /proc/$$/fd/*; do n=${fd##*/}; [ "$n" -gt 2 ] && eval "exec $n>&-" 2>/dev/null; done
            ulimit -n "$LIMIT" && exec "$0" "$@"
            """
        for limit in 10...24 {
            let port = try LocalPorts.closedPort()
            let process = try BackgroundProcess(
                "/bin/bash",
                ["-c", wrapper, serve, "--config", config, "--listen", "127.0.0.1:\(port)", "--state", "off"],
                directory: fleet.directory, name: "serve-\(limit)", environment: ["SWIFT_BACKTRACE": "enable=no", "LIMIT": "\(limit)"])
            processes.append(process)
            byLimit.append((limit, process))
        }
        let failing = { byLimit.filter { $0.process.stderr.contains("could not start: pipe: Too many open files") } }
        try waitUntil(timeout: 20, "no limit made a hook fail to start: \(byLimit.map { "\($0.limit): \($0.process.stderr.prefix(300))" })")
        {
            !failing().isEmpty
        }
        // Below some limit serve cannot even start; that is not this test's.
        // Every one that got as far as listening must live on, through the
        // hooks' retries (1 s and 2 s after the first attempt) and a little
        // more: a death there fails at once.
        let listening = { byLimit.filter { $0.process.stderr.contains("msg=listening") } }
        let watchedUntil = Date().addingTimeInterval(5)
        while Date() < watchedUntil, listening().allSatisfy({ $0.process.isRunning }) { usleep(100_000) }
        for (limit, process) in listening() {
            XCTAssertTrue(process.isRunning, "limit \(limit): serve ended after it started listening: \(process.stderr)")
        }
    }

    func testStartsFailingForWantOfDescriptorsAreCountedAndReportedOnce() throws {
        let reports = ReportLog()
        let runner = HookRunner(hooks: [HookCommand(arguments: ["/bin/true"])], backoff: 0.05, failureReportInterval: 60) {
            reports.append($0)
        }
        defer { runner.stop() }
        var saved = rlimit()
        XCTAssertEqual(getrlimit(Self.descriptorLimit, &saved), 0)
        var none = saved
        none.rlim_cur = 0
        XCTAssertEqual(setrlimit(Self.descriptorLimit, &none), 0)
        runner.run(for: (1...3).map { HookRunnerTests.transition("host\($0).test") })
        let deadline = Date().addingTimeInterval(10)
        while runner.currentCounts.failedStarts < 3 * HookRunner.attempts || runner.currentCounts.running > 0, Date() < deadline {
            usleep(20_000)
        }
        let counts = runner.currentCounts
        XCTAssertEqual(setrlimit(Self.descriptorLimit, &saved), 0)
        XCTAssertEqual(counts.failedStarts, 3 * HookRunner.attempts, "\(counts)")
        XCTAssertEqual(reports.all.count, 1, "\(reports.outcomes)")
        XCTAssertTrue(reports.outcomes.first?.hasPrefix("could not start: pipe: Too many open files") == true, "\(reports.outcomes)")
    }
}
