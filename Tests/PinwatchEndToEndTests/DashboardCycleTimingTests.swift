import Foundation
import XCTest

/// The dashboard's cycle timer.
final class DashboardCycleTimingTests: LocalFleetTestCase {
    /// `timeout` equal to `interval` and a host that never answers: the
    /// footer says once that cycles outlast the interval, and no cycle is
    /// skipped (it used to say "this one skipped" every other second).
    func testCyclesLongerThanTheIntervalAreSaidOnceAndNotSkipped() throws {
        try fleet.addBlackHole("hole.test")
        try fleet.writeConfig(settings: ["interval: 1s"], timeout: "1s")
        let config = fleet.directory.appendingPathComponent("pinwatch.yaml").path
        let invocation = [PinwatchBinary.url.path, "watch", "--config", config, "--no-bell"].map(TmuxSession.quote)
            .joined(separator: " ")
        let session = try TmuxSession(command: invocation, columns: 120, rows: 30)
        defer { session.close() }
        try session.waitForScreen(timeout: 15) { $0.contains("a cycle outlasted the 1s interval") }
        var screens: [String] = []
        let until = Date().addingTimeInterval(3)
        while Date() < until {
            screens.append(try session.capture())
            usleep(200_000)
        }
        XCTAssertFalse(screens.contains { $0.contains("skipped") }, screens.last ?? "")
    }
}
