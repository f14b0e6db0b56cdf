import Foundation
import PinwatchCore
import PinwatchService
import XCTest

/// `HookRunner` in this process, with real child processes (issue 30).
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

    static func transition(_ host: String) -> SeverityTransition {
        let report = HostReport(
            config: HostConfig(host: host), result: ProbeResult(), status: .error, matchedTiers: [], alerts: [.probeError],
            levels: [], leafDaysLeft: nil, proxy: ProxyReport())
        return SeverityTransition(previous: nil, report: report, time: Date())
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
