import Foundation
import XCTest

/// The dashboard's footer says hook runs that could not start, as `serve`'s
/// log does: both read the one rule of the Monitor's `hooksBehind`.
final class DashboardHookQueueTests: LocalFleetTestCase {
    func testHookRunsThatCannotStartAreSaidInTheFooter() throws {
        try fleet.addRefused("down.test")
        let missing = fleet.directory.appendingPathComponent("no-such-hook").path
        try fleet.writeConfig(settings: ["interval: 1s", "hooks:", "  - [\(missing)]"], timeout: "1s")
        let config = fleet.directory.appendingPathComponent("pinwatch.yaml").path
        let invocation = [PinwatchBinary.url.path, "watch", "--config", config, "--no-bell"].map(TmuxSession.quote)
            .joined(separator: " ")
        let session = try TmuxSession(command: "bash -c " + TmuxSession.quote(invocation), columns: 200, rows: 30)
        defer { session.close() }
        // down.test's first verdict is a transition; its hook cannot start.
        try session.waitForScreen(timeout: 20) { $0.contains("hooks behind:") && $0.contains("not started") }
    }
}
