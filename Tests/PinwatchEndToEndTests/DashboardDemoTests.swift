import Foundation
import XCTest

/// `pinwatch demo` under tmux: its own PKI and servers, and the live
/// rotation that turns payments.demo from ok to leaf_only.
final class DashboardDemoTests: XCTestCase {
    func testDemoRotationTurnsPaymentsLeafOnlyAndTheBannerNamesIt() throws {
        let invocation = [PinwatchBinary.url.path, "demo", "--interval", "1s", "--no-bell"].map(TmuxSession.quote).joined(separator: " ")
        // See DashboardFleet.watchCommand for why bash and why it lingers.
        let command = "bash -c " + TmuxSession.quote(invocation + "; echo EXITED:$?; sleep 30")
        // A crash reports at once instead of waiting 30 s for a debugger.
        let session = try TmuxSession(
            command: command, columns: 140, rows: 40, environment: ["SWIFT_BACKTRACE": "interactive=no", "NO_COLOR": ""])
        defer { session.close() }

        func paymentsRow(_ screen: String) -> String? {
            screen.split(separator: "\n").map(String.init).first {
                $0.contains("payments.demo:") && !$0.contains("LEAF ONLY") && !$0.contains("need attention")
            }
        }
        let before = try session.waitForScreen(timeout: 15) { paymentsRow($0)?.contains("✓ ok") == true }
        XCTAssertFalse(before.contains("LEAF ONLY payments.demo"), before)

        // Rotation after cycle 2; each cycle waits out gone.demo's 2 s deadline.
        let after = try session.waitForScreen(timeout: 30) { screen in
            screen.contains("LEAF ONLY payments.demo:") && paymentsRow(screen)?.contains("⚠ leaf_only") == true
        }
        XCTAssertTrue(after.contains("rotated the intermediate of payments.demo"), "the footer says what happened: \(after)")
        // The new leaf, seconds after pinwatch first saw the old one, is no
        // cadence: its 60-day lifetime decides (renewed 30 days before expiry).
        XCTAssertTrue(after.contains("LEAF ONLY payments.demo:"), after)
        let banner = after.split(separator: "\n").first { $0.contains("LEAF ONLY payments.demo:") } ?? ""
        XCTAssertTrue(banner.contains("breaks in ~30 days (next leaf renewal)"), String(banner))

        try session.send("q")
        let exited = try session.waitForScreen(timeout: 10) { $0.contains("EXITED:") }
        XCTAssertTrue(exited.contains("EXITED:0"), exited)
    }
}
