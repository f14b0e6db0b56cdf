import Foundation
import XCTest

/// SIGHUP in the dashboard (DESIGN §4, reload): a valid configuration takes effect
/// on the next cycle and hosts that stay keep their state; an invalid one
/// is refused on screen and the old one keeps running.
final class DashboardReloadTests: XCTestCase {
    func testHangupReloadsAValidConfigAndRefusesAnInvalidOne() throws {
        let fleet = try DashboardFleet()
        defer { fleet.stop() }
        let pidFile = fleet.directory.appendingPathComponent("pid")
        let invocation = [PinwatchBinary.url.path, "watch", "--config", fleet.configURL.path, "--no-bell"]
            .map(TmuxSession.quote).joined(separator: " ")
        // The shell writes its PID and becomes pinwatch (exec keeps the PID).
        let command = "bash -c " + TmuxSession.quote("echo $$ > \(TmuxSession.quote(pidFile.path)); exec \(invocation)")
        let session = try TmuxSession(command: command, columns: 140, rows: 30, environment: ["SWIFT_BACKTRACE": "interactive=no"])
        defer { session.close() }

        let down = fleet.displayName(DashboardFleet.down)
        let steady = fleet.displayName(DashboardFleet.steady)
        try session.waitForScreen(timeout: 20) { $0.contains(down) && $0.contains(steady) && !$0.contains("waiting") }
        let pid = try XCTUnwrap(Int32(String(contentsOf: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))

        // Valid: the down host is dropped; the others keep their rows.
        let original = try String(contentsOf: fleet.configURL, encoding: .utf8)
        let withoutDown = try XCTUnwrap(original.components(separatedBy: "  - host: \(DashboardFleet.down)").first)
        try withoutDown.write(to: fleet.configURL, atomically: true, encoding: .utf8)
        kill(pid, SIGHUP)
        let reloaded = try session.waitForScreen(timeout: 15) { $0.contains("configuration reloaded") && !$0.contains(down) }
        XCTAssertTrue(reloaded.contains("3 hosts"), reloaded)
        let steadyRow = try XCTUnwrap(reloaded.split(separator: "\n").first { $0.contains(steady) && !$0.contains("LEAF") })
        XCTAssertTrue(steadyRow.contains("✓ ok"), "a host that stays keeps its state: \(steadyRow)")

        // Invalid: refused with the reason, the running configuration stays.
        try "interval: 1s\nhosts: [\n".write(to: fleet.configURL, atomically: true, encoding: .utf8)
        kill(pid, SIGHUP)
        let refused = try session.waitForScreen(timeout: 15) { $0.contains("reload refused") }
        XCTAssertTrue(refused.contains("still running the previous configuration"), refused)
        XCTAssertTrue(refused.contains(steady), refused)
        XCTAssertEqual(kill(pid, 0), 0, "the dashboard is still running")
        try session.send("q")
    }
}
