import Dispatch
import Foundation
import PinwatchCore
import PinwatchMonitor
import XCTest

/// The loop `watch` and `serve` share, driven by hand: the test fires the
/// ticks, plays each cycle's reports and finish, and reads the events. No
/// sockets, no real timer, no waiting for the clock.
final class MonitorTests: XCTestCase {
    private let queue = DispatchQueue(label: "monitor-tests")
    /// Reloads are read here; `sync` on it, then on `queue`, settles one.
    private let readQueue = DispatchQueue(label: "monitor-tests.read")
    private var pollers: [ScriptedPoller] = []
    private var events: [MonitorEvent] = []
    private let hooks = RecordingHooks()
    private let timer = ManualTimer()
    /// Held to the test's end: the timer's handler holds its monitor weakly.
    private var monitors: [AnyObject] = []
    private var directory = ""
    /// Set on `queue` only: every event must be told there.
    private let onMonitorQueue = DispatchSpecificKey<Bool>()
    private var eventsOffQueue = 0

    override func setUpWithError() throws {
        queue.setSpecific(key: onMonitorQueue, value: true)
        directory = NSTemporaryDirectory() + "pinwatch-monitor-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
        XCTAssertEqual(queue.sync { eventsOffQueue }, 0, "events told off the caller's queue")
    }

    // MARK: Reload

    func testAReloadReadMidCycleTakesOverWhenTheCycleEnds() throws {
        let first = Self.config(hosts: ["a.test"])
        let second = Self.config(hosts: ["a.test", "b.test", "c.test"])
        let monitor = makeMonitor(first, read: { second })
        queue.sync { monitor.start() }
        timer.fire(on: queue)
        XCTAssertEqual(pollers.count, 1)
        XCTAssertEqual(pollers[0].cycles.count, 1)

        queue.sync { _ = monitor.requestReload() }
        settleReload()
        queue.sync {
            XCTAssertTrue(events.contains { if case .reloadRead = $0 { true } else { false } })
            XCTAssertFalse(events.contains { if case .reloadApplied = $0 { true } else { false } }, "not while a cycle runs")
            XCTAssertEqual(monitor.config.hosts.count, 1)
        }

        pollers[0].finish(cycle: 0, on: queue)
        queue.sync {
            XCTAssertEqual(monitor.config.hosts.map(\.host), ["a.test", "b.test", "c.test"])
            let names = events.map(Self.name)
            let finished = try? XCTUnwrap(names.firstIndex(of: "cycleFinished"))
            let applied = try? XCTUnwrap(names.firstIndex(of: "reloadApplied"))
            XCTAssertLessThan(finished ?? .max, applied ?? .min, "applied after the cycle's own end: \(names)")
        }
        XCTAssertEqual(pollers.count, 2, "a new poller for the new configuration")
        XCTAssertEqual(hooks.replaced.count, 1, "the hooks follow the configuration")
        timer.fire(on: queue)
        XCTAssertEqual(pollers[1].cycles.count, 1, "the next cycle runs the new configuration")
        XCTAssertEqual(pollers[0].cycles.count, 1)
    }

    func testAReloadRequestedWhileOneIsReadIsReadAgainAfterIt() throws {
        let reads = Counter()
        let monitor = makeMonitor(
            Self.config(hosts: ["a.test"]),
            read: {
                reads.add()
                return Self.config(hosts: ["a.test"])
            })
        readQueue.suspend()
        queue.sync {
            _ = monitor.requestReload()
            _ = monitor.requestReload()
            _ = monitor.requestReload()
        }
        readQueue.resume()
        settleReload()
        settleReload()
        XCTAssertEqual(reads.value, 2, "one read under way, and one more for the requests made during it")
    }

    func testAnInvalidConfigurationIsRefusedAndTheRunningOneStays() {
        struct Broken: Error {}
        let monitor = makeMonitor(Self.config(hosts: ["a.test"]), read: { throw Broken() })
        queue.sync { _ = monitor.requestReload() }
        settleReload()
        queue.sync {
            XCTAssertEqual(events.map(Self.name), ["reloadFailed"])
            XCTAssertEqual(monitor.config.hosts.map(\.host), ["a.test"])
        }
    }

    func testWithoutAReaderThereIsNothingToReload() {
        let monitor = makeMonitor(Self.config(hosts: ["a.test"]), read: nil)
        XCTAssertFalse(queue.sync { monitor.requestReload() })
    }

    // MARK: Ticks

    func testALateTickIsSkippedCountedAndSaidOnce() {
        let monitor = makeMonitor(Self.config(hosts: ["a.test"]), read: nil)
        queue.sync { monitor.start() }
        timer.fire(on: queue)
        timer.fire(on: queue)
        timer.fire(on: queue)
        XCTAssertEqual(pollers[0].cycles.count, 1, "no host is probed twice at once")
        queue.sync {
            XCTAssertEqual(monitor.lateTicks, 2)
            XCTAssertEqual(events.map(Self.name).filter { $0 == "cycleOverran" }.count, 1)
        }
        pollers[0].finish(cycle: 0, on: queue)
        XCTAssertEqual(pollers[0].cycles.count, 2, "the next cycle starts as the late one ends, once")
        pollers[0].finish(cycle: 1, on: queue)
        XCTAssertEqual(pollers[0].cycles.count, 2, "nothing more was due")
        timer.fire(on: queue)
        timer.fire(on: queue)
        queue.sync {
            XCTAssertEqual(monitor.lateTicks, 3)
            XCTAssertEqual(events.map(Self.name).filter { $0 == "cycleOverran" }.count, 1, "said once per monitor")
        }
    }

    func testANewIntervalCountsFromTheTickAlreadyPlanned() {
        let clock = TestClock()
        var longer = Self.config(hosts: ["a.test"])
        longer.interval = 300
        let reloaded = longer
        let monitor = makeMonitor(Self.config(hosts: ["a.test"]), read: { reloaded }, now: clock.now)
        queue.sync { monitor.start() }
        timer.fire(on: queue)
        clock.advance(by: 20)
        queue.sync { _ = monitor.requestReload(because: .clientFilesChanged) }
        settleReload()
        XCTAssertEqual(pollers[0].cycles.count, 1, "a reload for changed client files starts no cycle")
        XCTAssertEqual(timer.plans.last?.delay ?? -1, 40, accuracy: 0.001, "the tick planned at 60 s stays")
        XCTAssertEqual(timer.plans.last?.interval, 300)
    }

    /// A requested reload (SIGHUP) runs the new configuration at once, not
    /// at the next tick, and the ticks count from that cycle; a burst of
    /// requests right after a cycle's start waits out the gap, once.
    func testARequestedReloadRunsItsCycleAtOnceAndTheTicksCountFromIt() {
        let clock = TestClock()
        var longer = Self.config(hosts: ["a.test", "b.test"])
        longer.interval = 120
        let reloaded = longer
        let monitor = makeMonitor(Self.config(hosts: ["a.test"]), read: { reloaded }, now: clock.now)
        queue.sync { monitor.start() }
        timer.fire(on: queue)
        pollers[0].finish(cycle: 0, on: queue)
        clock.advance(by: 12)
        queue.sync { _ = monitor.requestReload() }
        settleReload()
        XCTAssertEqual(pollers.count, 2, "applied: no cycle was running")
        XCTAssertEqual(timer.plans.last?.delay ?? -1, 0, accuracy: 0.001, "its cycle now, not 48 s later")
        XCTAssertEqual(timer.plans.last?.interval, 120)
        timer.fire(on: queue)
        XCTAssertEqual(pollers[1].cycles.count, 1, "the new configuration at work")
        queue.sync {
            guard case .nextTick(let next) = events.last(where: { if case .nextTick = $0 { true } else { false } }) else {
                return XCTFail("no next tick told")
            }
            XCTAssertEqual(next, clock.now().addingTimeInterval(120), "the regular ticks count from the reload's cycle")
        }
        pollers[1].finish(cycle: 0, on: queue)

        clock.advance(by: 2)
        let plansBefore = timer.plans.count
        queue.sync { _ = monitor.requestReload() }
        settleReload()
        XCTAssertEqual(timer.plans.count, plansBefore + 1)
        XCTAssertEqual(timer.plans.last?.delay ?? -1, 3, accuracy: 0.001, "5 s after the last cycle's start at the soonest")
    }

    // MARK: Transitions and hooks

    func testAHostThatMovedRowsAcrossAReloadKeepsItsSeverity() throws {
        let first = Self.config(hosts: ["down.test", "up.test"])
        // Rows swapped, and a new host first.
        let second = Self.config(hosts: ["new.test", "up.test", "down.test"])
        let monitor = makeMonitor(first, read: { second })
        queue.sync { monitor.start() }
        timer.fire(on: queue)
        let downReport = Self.down(first.hosts[0])
        let upReport = Self.up(first.hosts[1])
        XCTAssertNotEqual(downReport.severity, upReport.severity)
        XCTAssertEqual(upReport.severity, .ok)
        pollers[0].deliver([(0, downReport), (1, upReport)], cycle: 0, on: queue)
        XCTAssertEqual(hooks.transitions.map(\.report.config.host), ["down.test"], "a host in trouble at first sight")

        queue.sync { _ = monitor.requestReload() }
        settleReload()
        pollers[0].finish(cycle: 0, on: queue)
        timer.fire(on: queue)
        // Row 1 was down.test's and is up.test's now; row 2 is down.test's.
        pollers[1].deliver(
            [(0, Self.up(second.hosts[0])), (1, Self.up(second.hosts[1])), (2, Self.down(second.hosts[2]))], cycle: 0, on: queue)
        XCTAssertEqual(hooks.transitions.count, 1, "no host changed: \(hooks.transitions.map(\.report.config.host))")

        pollers[1].deliver([(2, Self.up(second.hosts[2]))], cycle: 0, on: queue)
        let recovered = try XCTUnwrap(hooks.transitions.last)
        XCTAssertEqual(recovered.report.config.host, "down.test")
        XCTAssertEqual(recovered.previous?.severity, downReport.severity, "compared with its own last report")
    }

    func testHooksHearOfEachTransitionOnce() {
        let config = Self.config(hosts: ["a.test", "b.test"])
        let monitor = makeMonitor(config, read: nil)
        queue.sync { monitor.start() }
        var expected = 0
        for (cycle, aDown) in [true, true, false, false, true].enumerated() {
            timer.fire(on: queue)
            let a = aDown ? Self.down(config.hosts[0]) : Self.up(config.hosts[0])
            // In two batches, as the poller hands them over.
            pollers[0].deliver([(0, a)], cycle: cycle, on: queue)
            pollers[0].deliver([(1, Self.up(config.hosts[1]))], cycle: cycle, on: queue)
            pollers[0].finish(cycle: cycle, on: queue)
            if cycle == 0 || aDown != [true, true, false, false, true][cycle - 1] { expected += 1 }
        }
        XCTAssertEqual(expected, 3)
        XCTAssertEqual(hooks.transitions.count, expected)
        XCTAssertTrue(hooks.runs.allSatisfy { !$0.isEmpty }, "no empty runs")
        let told = queue.sync {
            events.reduce(0) { sum, event in
                if case .reports(_, let transitions) = event { return sum + transitions.count }
                return sum
            }
        }
        XCTAssertEqual(told, expected, "the front end hears of the same transitions")
    }

    /// DESIGN §15: each event the hooks hear of has an id of its own and the
    /// next sequence number of the process, across reloads.
    func testEachTransitionHasItsOwnIdAndTheNextSequenceNumber() throws {
        let first = Self.config(hosts: ["a.test", "b.test"])
        let second = Self.config(hosts: ["b.test", "a.test"])
        let monitor = makeMonitor(first, read: { second })
        queue.sync { monitor.start() }
        timer.fire(on: queue)
        pollers[0].deliver([(0, Self.down(first.hosts[0])), (1, Self.down(first.hosts[1]))], cycle: 0, on: queue)
        queue.sync { _ = monitor.requestReload() }
        settleReload()
        pollers[0].finish(cycle: 0, on: queue)
        timer.fire(on: queue)
        pollers[1].deliver([(0, Self.up(second.hosts[0])), (1, Self.up(second.hosts[1]))], cycle: 0, on: queue)

        let told = hooks.transitions
        XCTAssertEqual(told.map(\.sequence), [1, 2, 3, 4])
        XCTAssertEqual(Set(told.map(\.id)).count, 4, "\(told.map(\.id))")
        XCTAssertTrue(told.allSatisfy { UUID(uuidString: $0.id) != nil }, "\(told.map(\.id))")
        let json = try XCTUnwrap(told.last?.json.data(using: .utf8))
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: json) as? [String: Any])
        XCTAssertEqual(object["id"] as? String, told.last?.id)
        XCTAssertEqual(object["sequence"] as? Int, 4)
    }

    // MARK: Client files

    func testAChangedClientFileIsReadAtTheNextCycleStart() throws {
        let path = directory + "/trustkit.json"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data("{}".utf8)))
        var config = Self.config(hosts: ["a.test"])
        config.clientSources = [ClientSource(name: "ios 7.0", format: .trustkit, location: .file(path))]
        let reads = Counter()
        let unchanged = config
        let monitor = makeMonitor(
            config,
            read: {
                reads.add()
                return unchanged
            })
        queue.sync { monitor.start() }
        timer.fire(on: queue)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-3600)], ofItemAtPath: path)
        pollers[0].finish(cycle: 0, on: queue)
        settleReload()
        XCTAssertEqual(reads.value, 0, "files are looked at when a cycle starts, not in between")

        timer.fire(on: queue)
        settleReload()
        XCTAssertEqual(reads.value, 1)
        queue.sync {
            XCTAssertTrue(
                events.contains { if case .reloadRead(_, .clientFilesChanged) = $0 { true } else { false } }, "\(events.map(Self.name))")
        }
        pollers[0].finish(cycle: 1, on: queue)
        timer.fire(on: queue)
        settleReload()
        XCTAssertEqual(reads.value, 1, "the file as read is not news")
    }

    // MARK: Hooks behind

    func testHookRunsMergedDroppedOrNotStartedAreToldOnceACycleAsWhatChanged() {
        let monitor = makeMonitor(Self.config(hosts: ["a.test"]), read: nil)
        queue.sync { monitor.start() }
        func cycle(_ number: Int) {
            timer.fire(on: queue)
            pollers[0].finish(cycle: number, on: queue)
        }
        func told() -> [HookRunner.Counts] {
            queue.sync { events.compactMap { if case .hooksBehind(let since) = $0 { since } else { nil } } }
        }
        cycle(0)
        XCTAssertEqual(told().count, 0, "nothing behind, nothing said")
        queue.sync {
            hooks.currentCounts.failedStarts = 3
            hooks.currentCounts.waiting = 1
        }
        cycle(1)
        cycle(2)
        queue.sync { hooks.currentCounts.merged = 2 }
        cycle(3)
        let since = told()
        XCTAssertEqual(since.map(\.failedStarts), [3, 0], "counted since the last time, said once")
        XCTAssertEqual(since.map(\.merged), [0, 2])
        XCTAssertEqual(since.map(\.waiting), [1, 1], "waiting is now, not since")
        let names = queue.sync { events.map(Self.name) }
        XCTAssertEqual(names.firstIndex(of: "hooksBehind").map { names[$0 - 1] }, "cycleFinished", "right after the cycle's end: \(names)")
    }

    // MARK: Helpers

    private func makeMonitor(
        _ config: Config, read: (@Sendable () throws -> Config)?, now: @escaping () -> Date = { Date(timeIntervalSince1970: 1_800_000_000) }
    ) -> Monitor<ScriptedPoller> {
        let monitor = Monitor(
            config: config, queue: queue,
            makePoller: { [unowned self] config in
                let poller = ScriptedPoller(config: config)
                pollers.append(poller)
                return poller
            }, hooks: hooks, readConfig: read, timer: timer, now: now, readQueue: readQueue,
            onEvent: { [unowned self] event in
                if DispatchQueue.getSpecific(key: onMonitorQueue) != true { eventsOffQueue += 1 }
                events.append(event)
            })
        monitors.append(monitor)
        return monitor
    }

    /// The read under way ends, then its result is taken on `queue`.
    private func settleReload() {
        readQueue.sync {}
        queue.sync {}
    }

    private static func name(_ event: MonitorEvent) -> String {
        String("\(event)".prefix { $0 != "(" })
    }

    static func config(hosts: [String]) -> Config {
        Config(interval: 60, hosts: hosts.enumerated().map { HostConfig(host: $1, line: $0 + 1) })
    }

    static func down(_ host: HostConfig) -> HostReport {
        let result = ProbeResult(failure: ProbeFailure(kind: .refused, message: "connection refused"))
        return Verdict.report(for: host, result: result, now: Date(timeIntervalSince1970: 1_800_000_000), warnDays: 21, criticalDays: 7)
    }

    /// Trusted and unpinned: ok.
    static func up(_ host: HostConfig) -> HostReport {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let facts = CertificateFacts(
            subject: "CN=\(host.host)", issuer: "CN=Root", notBefore: now.addingTimeInterval(-86_400),
            notAfter: now.addingTimeInterval(90 * 86_400), keyDescription: "ECDSA P-256",
            spkiSHA256: [UInt8](repeating: 1, count: 32), keySHA256: [UInt8](repeating: 2, count: 32),
            certSHA256: [UInt8](repeating: 3, count: 32))
        let result = ProbeResult(chain: [ChainCertificate(facts: facts, fromServer: true)], sentCount: 1, trusted: true, finishedAt: now)
        return Verdict.report(for: host, result: result, now: now, warnDays: 21, criticalDays: 7)
    }
}

/// Cycles the test plays: each recorded start waits for the test's reports
/// and finish.
final class ScriptedPoller: MonitorPoller {
    let config: Config
    private(set) var cycles: [(onReports: (HostPoller.Batch) -> Void, onFinish: (HostPoller.CycleOutcome) -> Void)] = []

    init(config: Config) {
        self.config = config
    }

    func pollCycle(
        on queue: DispatchQueue, onReports: @escaping (HostPoller.Batch) -> Void,
        onFinish: @escaping (HostPoller.CycleOutcome) -> Void
    ) {
        cycles.append((onReports, onFinish))
    }

    func deliver(_ batch: HostPoller.Batch, cycle: Int, on queue: DispatchQueue) {
        queue.sync { cycles[cycle].onReports(batch) }
    }

    func finish(cycle: Int, on queue: DispatchQueue) {
        queue.sync { cycles[cycle].onFinish(HostPoller.CycleOutcome()) }
    }
}

final class ManualTimer: MonitorTimer {
    private var handler: (() -> Void)?
    private(set) var plans: [(delay: TimeInterval, interval: TimeInterval)] = []

    func setHandler(_ handler: @escaping () -> Void) {
        self.handler = handler
    }

    func schedule(after delay: TimeInterval, repeating interval: TimeInterval) {
        plans.append((delay, interval))
    }

    func fire(on queue: DispatchQueue) {
        queue.sync { handler?() }
    }
}

final class RecordingHooks: MonitorHooks {
    private(set) var runs: [[SeverityTransition]] = []
    private(set) var replaced: [[HookCommand]] = []
    /// What the test says the runner did so far.
    var currentCounts = HookRunner.Counts()

    var transitions: [SeverityTransition] { runs.flatMap { $0 } }

    func run(for transitions: [SeverityTransition]) {
        runs.append(transitions)
    }

    func replaceHooks(_ hooks: [HookCommand]) {
        replaced.append(hooks)
    }
}

final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current = Date(timeIntervalSince1970: 1_800_000_000)

    var now: () -> Date { { [self] in lock.withLock { current } } }

    func advance(by seconds: TimeInterval) {
        lock.withLock { current += seconds }
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    var value: Int { lock.withLock { count } }

    func add() {
        lock.withLock { count += 1 }
    }
}
