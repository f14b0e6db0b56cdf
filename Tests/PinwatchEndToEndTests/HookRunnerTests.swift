import Foundation
import PinwatchCore
import PinwatchMonitor
import PinwatchService
import XCTest

/// `HookRunner` in this process, with real child processes (DESIGN §15).
final class HookRunnerTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("hooks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: directory)
        super.tearDown()
    }

    /// A pipe this process holds without close-on-exec, as a library
    /// might, or as the runner holds another hook's stdin: once its write
    /// end is closed here, its reader sees the end although a hook started
    /// meanwhile is still running.
    func testAPipeThisProcessHoldsEndsWhileAHookRuns() throws {
        var ends: [Int32] = [-1, -1]
        XCTAssertEqual(pipe(&ends), 0)
        defer { close(ends[0]) }
        let started = directory.appendingPathComponent("started")
        let reports = ReportLog()
        let runner = HookRunner(
            hooks: [HookCommand(arguments: ["/bin/sh", "-c", "touch \"$0\"; exec sleep 3", started.path], timeout: 10)]
        ) { reports.append($0) }
        defer { runner.stop() }
        runner.run(for: [Self.transition("slow.test")])
        try waitUntil(timeout: 5, "the hook never started") { FileManager.default.fileExists(atPath: started.path) }
        close(ends[1])
        var descriptor = pollfd(fd: ends[0], events: Int16(POLLIN), revents: 0)
        XCTAssertEqual(poll(&descriptor, 1, 2000), 1, "the running hook holds the write end")
        if descriptor.revents != 0 {
            var byte: UInt8 = 0
            XCTAssertEqual(read(ends[0], &byte, 1), 0, "end of input")
        }
        try waitUntil(timeout: 10, "the hook never finished") { reports.outcomes.contains("exit 0") }
    }

    /// Two events at once: each `cat` hook reads its event to the end and
    /// finishes while the slow hooks beside it are still running.
    func testAnotherHooksInputEndsWhileASlowHookRuns() throws {
        let reports = ReportLog()
        let runner = HookRunner(
            hooks: [
                HookCommand(arguments: ["/bin/sh", "-c", "exec sleep 4"], timeout: 10),
                HookCommand(arguments: ["/bin/sh", "-c", "cat > \"$0/$(date +%s%N).tmp\" && echo done >&2", directory.path], timeout: 10),
            ]
        ) { reports.append($0) }
        defer { runner.stop() }
        let started = Date()
        runner.run(for: [Self.transition("a.test"), Self.transition("b.test")])
        try waitUntil(timeout: 10, "the cat hooks never finished: \(reports.outcomes)") {
            reports.all.filter { $0.stderr == "done" }.count == 2
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 3.5, "the cat hooks waited for the slow ones")
        let events = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
        XCTAssertEqual(events.count, 2)
        for event in events {
            XCTAssertTrue(try String(contentsOf: event, encoding: .utf8).hasPrefix("{\"event\":\"severity_changed\""))
        }
        try waitUntil(timeout: 10, "the slow hooks never finished") { reports.all.count == 4 }
    }

    // MARK: Storms

    /// A hook that keeps its event and holds its slot for a second.
    private var keepingHook: HookCommand {
        HookCommand(arguments: ["/bin/sh", "-c", "cat > \"$0/$(date +%s%N).json\"; exec sleep 1", directory.path], timeout: 10)
    }

    private func eventsKept() throws -> [String] {
        try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .map { try String(contentsOf: $0, encoding: .utf8) }
    }

    /// A host flapping faster than its hook runs: what waits is one run
    /// with the newest event, not one run per flap.
    func testEventsForOneHostAndHookMergeWhileTheyWait() throws {
        let runner = HookRunner(hooks: [keepingHook]) { _ in }
        defer { runner.stop() }
        runner.run(for: (1...4).map { Self.transition("busy\($0).test") })
        try waitUntil(timeout: 5, "four hooks never ran at once: \(runner.currentCounts)") { runner.currentCounts.running == 4 }
        let flaps = 1...50
        for flap in flaps {
            runner.run(for: [Self.transition("flapping.test", at: Date(timeIntervalSince1970: 1_800_000_000 + Double(flap)))])
        }
        XCTAssertEqual(runner.currentCounts.waiting, 1)
        XCTAssertEqual(runner.currentCounts.merged, flaps.count - 1)
        try waitUntil(timeout: 10, "the hooks never finished: \(runner.currentCounts)") {
            let counts = runner.currentCounts
            return counts.running == 0 && counts.waiting == 0
        }
        let flapping = try eventsKept().filter { $0.contains("\"host\":\"flapping.test\"") }
        XCTAssertEqual(flapping.count, 1, "one run for the flapping host")
        let newest = DateText.iso8601(Date(timeIntervalSince1970: 1_800_000_000 + Double(flaps.upperBound)))
        XCTAssertTrue(flapping.first?.contains("\"time\":\"\(newest)\"") == true, flapping.first ?? "")
        XCTAssertEqual(runner.currentCounts.dropped, 0)
    }

    /// Past its limit the queue drops its oldest run, and counts it.
    func testAFullQueueDropsItsOldestRunAndCountsIt() throws {
        let runner = HookRunner(hooks: [keepingHook], queueLimit: 3) { _ in }
        defer { runner.stop() }
        for busy in 1...4 {
            runner.run(for: [Self.transition("busy\(busy).test")])
            try waitUntil(timeout: 5, "hook \(busy) never started: \(runner.currentCounts)") { runner.currentCounts.running == busy }
        }
        runner.run(for: (1...10).map { Self.transition("waiting\($0).test") })
        XCTAssertEqual(runner.currentCounts.waiting, 3)
        XCTAssertEqual(runner.currentCounts.dropped, 7)
        try waitUntil(timeout: 10, "the hooks never finished: \(runner.currentCounts)") {
            let counts = runner.currentCounts
            return counts.running == 0 && counts.waiting == 0
        }
        let hosts = try eventsKept().compactMap { event in (1...10).first { event.contains("\"host\":\"waiting\($0).test\"") } }
        XCTAssertEqual(hosts.sorted(), [8, 9, 10], "the newest three ran")
    }

    /// DESIGN §15: a retry is the same event (same id and sequence number),
    /// so a receiver that got a failed attempt can tell it from a new one.
    func testARetryCarriesTheSameIdAndSequence() throws {
        // Fails twice, keeping what it was given each time; the third
        // attempt succeeds.
        let failing = HookCommand(
            arguments: [
                "/bin/sh", "-c", "cat > \"$0/$(date +%s%N).json\"; [ $(ls \"$0\" | wc -l) -ge 3 ]", directory.path,
            ], timeout: 10)
        let reports = ReportLog()
        let runner = HookRunner(hooks: [failing], backoff: 0.05) { reports.append($0) }
        defer { runner.stop() }
        var transition = Self.transition("flaky.test")
        transition.id = "8f0c2a4e-9a43-4b7e-a1d2-5f3e2b1c0d9e"
        transition.sequence = 42
        runner.run(for: [transition])
        try waitUntil(timeout: 10, "three attempts never ran: \(reports.all.map(\.outcome))") {
            reports.all.count == HookRunner.attempts
        }
        XCTAssertEqual(reports.all.map(\.succeeded), [false, false, true])
        let attempts = try eventsKept()
        XCTAssertEqual(attempts.count, HookRunner.attempts)
        for attempt in attempts {
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(attempt.utf8)) as? [String: Any])
            XCTAssertEqual(object["id"] as? String, transition.id, attempt)
            XCTAssertEqual(object["sequence"] as? Int, 42, attempt)
        }
    }

    /// At exit the running hooks die with what they started, and what
    /// waited is counted, not silently lost.
    func testStoppingKillsRunningHooksAndCountsTheWaitingOnes() throws {
        let children = directory.appendingPathComponent("children")
        let reports = ReportLog()
        let runner = HookRunner(
            hooks: [HookCommand(arguments: ["/bin/sh", "-c", "sleep 60 & echo $! >> \"$0\"; wait", children.path], timeout: 60)]
        ) { reports.append($0) }
        runner.run(for: (1...6).map { Self.transition("host\($0).test") })
        try waitUntil(timeout: 5, "four hooks never ran at once") {
            runner.currentCounts.running == 4
                && ((try? String(contentsOf: children, encoding: .utf8)) ?? "").split(separator: "\n").count == 4
        }
        let stopped = runner.stop()
        XCTAssertEqual(stopped.running, 4)
        XCTAssertEqual(stopped.waiting, 2)
        let pids = try String(contentsOf: children, encoding: .utf8).split(separator: "\n").compactMap { pid_t($0) }
        try waitUntil(timeout: 5, "a hook's child outlived the stop") {
            pids.allSatisfy { pid in
                let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
                return status.isEmpty || status.contains("State:\tZ")
            }
        }
        try waitUntil(timeout: 5, "the killed hooks were not reported") { reports.all.count == 4 }
        XCTAssertEqual(runner.currentCounts.running, 0)
    }

    static func transition(_ host: String, at time: Date = Date()) -> SeverityTransition {
        let report = HostReport(
            config: HostConfig(host: host), result: ProbeResult(), status: .error, matchedTiers: [], alerts: [.probeError],
            levels: [], leafDaysLeft: nil, proxy: ProxyReport())
        return SeverityTransition(previous: nil, report: report, time: time)
    }
}

/// Hook reports as they arrive from the runner's threads.
final class ReportLog: @unchecked Sendable {
    private let lock = NSLock()
    private var reports: [HookRunner.Report] = []

    func append(_ report: HookRunner.Report) {
        lock.lock()
        reports.append(report)
        lock.unlock()
    }

    var all: [HookRunner.Report] {
        lock.lock()
        defer { lock.unlock() }
        return reports
    }

    var outcomes: [String] { all.map(\.outcome) }
}
