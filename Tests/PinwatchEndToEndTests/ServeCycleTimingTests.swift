import Foundation
import PinwatchTestSupport
import XCTest

/// `pinwatch serve`'s cycle timer (issue 30).
final class ServeCycleTimingTests: LocalFleetTestCase {
    private var serve: BackgroundProcess?

    override func tearDown() {
        serve?.stop()
        serve = nil
        super.tearDown()
    }

    private func startServe() throws -> BackgroundProcess {
        let port = try LocalPorts.closedPort()
        let process = try BackgroundProcess(
            PinwatchBinary.url.path,
            ["serve", "--config", fleet.directory.appendingPathComponent("pinwatch.yaml").path, "--listen", "127.0.0.1:\(port)"],
            directory: fleet.directory, name: "serve")
        serve = process
        return process
    }

    private func lines(_ process: BackgroundProcess, containing text: String) -> Int {
        process.stderr.split(separator: "\n").filter { $0.contains(text) }.count
    }

    /// Reloads that change the interval, many and fast: none starts a cycle
    /// of its own (each used to start one at once); the new interval counts
    /// from the tick already planned.
    func testAStormOfReloadsChangingTheIntervalStartsNoCycle() throws {
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
