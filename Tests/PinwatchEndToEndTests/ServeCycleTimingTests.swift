import Foundation
import PinwatchTestSupport
import XCTest

/// `pinwatch serve`'s cycle timer.
final class ServeCycleTimingTests: LocalFleetTestCase {
    private var serve: BackgroundProcess?

    override func tearDown() {
        serve?.stop()
        serve = nil
        super.tearDown()
    }

    private func startServe(settings: [String]) throws -> BackgroundProcess {
        try fleet.writeConfig(settings: settings, timeout: "1s")
        return try startServe()
    }

    private func startServe() throws -> BackgroundProcess {
        let process = try launchServe()
        serve = process
        return process
    }

    private func lines(_ process: BackgroundProcess, containing text: String) -> Int {
        process.stderr.split(separator: "\n").filter { $0.contains(text) }.count
    }

    /// Reloads that change the interval, many and fast: each runs its
    /// configuration at once, but no sooner after the last cycle's start
    /// than the interval (or 5 s), so the storm is not a storm of cycles.
    func testAStormOfReloadsChangingTheIntervalStartsNoMoreCyclesThanTheInterval() throws {
        try fleet.addOK("ok.test")
        try fleet.writeConfig(settings: ["interval: 3s"], timeout: "1s")
        let process = try startServe()
        try waitUntil(timeout: 15, "the first cycle never finished: \(process.stderr)") {
            lines(process, containing: "msg=\"cycle finished\"") >= 1
        }
        let cyclesBefore = lines(process, containing: "msg=\"cycle finished\"")
        let started = Date()
        for reload in 1...20 {
            try fleet.writeConfig(settings: ["interval: \(reload.isMultiple(of: 2) ? 3 : 2)s"], timeout: "1s")
            process.signal(SIGHUP)
            try waitUntil(timeout: 5, "reload \(reload) was not taken: \(process.stderr)") {
                lines(process, containing: "msg=\"configuration reloaded\"") >= reload
            }
        }
        let cyclesDuring = lines(process, containing: "msg=\"cycle finished\"") - cyclesBefore
        // At most one tick of 2 s or more in the storm's time, plus one
        // already under way.
        let allowed = Int(Date().timeIntervalSince(started) / 2) + 2
        XCTAssertLessThanOrEqual(cyclesDuring, allowed, process.stderr)
    }

    /// A reload is at work at once, not at the next tick a minute away: the
    /// added host is probed and logged within seconds of SIGHUP.
    func testAReloadRunsTheNewConfigurationAtOnce() throws {
        try fleet.addOK("first.test")
        let process = try startServe(settings: ["interval: 60s"])
        try waitUntil(timeout: 15, "the first cycle never finished: \(process.stderr)") {
            lines(process, containing: "msg=\"cycle finished\"") >= 1
        }
        try fleet.addOK("second.test")
        try fleet.writeConfig(settings: ["interval: 60s"], timeout: "1s")
        process.signal(SIGHUP)
        try waitUntil(timeout: 20, "no cycle ran the reloaded configuration: \(process.stderr.suffix(1_500))") {
            lines(process, containing: "msg=\"cycle finished\"") >= 2
        }
        let finished = process.stderr.split(separator: "\n").filter { $0.contains("msg=\"cycle finished\"") }
        XCTAssertTrue(finished.last?.contains("hosts=2") ?? false, "\(finished)")
    }

    /// Reloads, half of them changing the interval: after a warm-up,
    /// hundreds more leave the resident size where it was (each used to
    /// keep about 2 KB, 16 KB with a new interval, plus the cycle it began).
    func testReloadsKeepMemoryFlat() throws {
        try fleet.addRefused("down.test")
        let process = try startServe(settings: ["interval: 1s", "hooks:", "  - [/bin/true]"])
        try waitUntil(timeout: 15, "serve never listened: \(process.stderr)") { lines(process, containing: "msg=listening") == 1 }
        var reloads = 0
        func reload(times: Int) throws {
            for _ in 0..<times {
                reloads += 1
                try fleet.writeConfig(
                    settings: ["interval: \(reloads.isMultiple(of: 2) ? 1 : 2)s", "hooks:", "  - [/bin/true]"], timeout: "1s")
                process.signal(SIGHUP)
                // Polled closely: waitUntil's 100 ms would make this minutes.
                let deadline = Date().addingTimeInterval(5)
                while lines(process, containing: "msg=\"configuration reloaded\"") < reloads, Date() < deadline { usleep(2_000) }
                guard lines(process, containing: "msg=\"configuration reloaded\"") >= reloads else {
                    XCTFail("reload \(reloads) was not taken: \(process.stderr.suffix(500))")
                    return
                }
            }
        }
        let resident = { () -> Int in
            let status = (try? String(contentsOfFile: "/proc/\(process.pid)/status", encoding: .utf8)) ?? ""
            let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        }
        try reload(times: 150)
        let warm = resident()
        try reload(times: 400)
        let grown = resident() - warm
        XCTAssertGreaterThan(warm, 0)
        XCTAssertLessThan(grown, 2048, "KB more resident after 400 more reloads")
    }

    /// `timeout` equal to `interval` and a host that never answers: every
    /// cycle outlasts the interval a little. Each is followed at once by
    /// the next (it used to skip every other one, with a warning a second).
    func testCyclesLongerThanTheIntervalFollowEachOtherAndAreSaidOnce() throws {
        try fleet.addBlackHole("hole.test")
        try fleet.writeConfig(settings: ["interval: 1s"], timeout: "1s")
        let process = try startServe()
        let started = Date()
        try waitUntil(timeout: 15, "five cycles never finished: \(process.stderr)") {
            lines(process, containing: "msg=\"cycle finished\"") >= 5
        }
        // Five cycles of a little over a second each, none skipped.
        XCTAssertLessThan(Date().timeIntervalSince(started), 8.5, process.stderr)
        XCTAssertEqual(lines(process, containing: "skipped"), 0, process.stderr)
        XCTAssertEqual(lines(process, containing: "a cycle outlasted the interval"), 1, process.stderr)
    }
}
