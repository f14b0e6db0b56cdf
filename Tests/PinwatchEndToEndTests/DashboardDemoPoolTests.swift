import Foundation
import XCTest

/// The demo's pool host (README, "Set up") under tmux: shop.demo is pinned only to Demo Pool CA 1, one
/// of the five intermediates its CA issues from; after the fourth cycle the
/// demo renews it under a sibling (Demo Pool CA 3) and it turns blocked.
final class DashboardDemoPoolTests: XCTestCase {
    func testARenewalUnderASiblingPoolIntermediateTurnsShopBlocked() throws {
        let invocation = [PinwatchBinary.url.path, "demo", "--interval", "1s", "--no-bell"].map(TmuxSession.quote).joined(separator: " ")
        // See DashboardFleet.watchCommand for why bash and why it lingers.
        let command = "bash -c " + TmuxSession.quote(invocation + "; echo EXITED:$?; sleep 30")
        let session = try TmuxSession(
            command: command, columns: 140, rows: 40, environment: ["SWIFT_BACKTRACE": "interactive=no", "NO_COLOR": ""])
        defer { session.close() }

        func shopRow(_ screen: String) -> String? {
            // The table row: a symbol, the status in lower case, the host
            // (banner lines spell the headline in capitals).
            screen.split(separator: "\n").map(String.init).first {
                $0.range(of: #"^ \S [a-z_…]+ +shop\.demo:"#, options: .regularExpression) != nil
            }
        }
        // Clients accept it today, but the pool makes it a warning (DESIGN §10).
        let before = try session.waitForScreen(timeout: 15) { shopRow($0)?.contains("⚠ intermed") == true }
        XCTAssertFalse(before.contains("BLOCKED shop.demo"), before)

        // Moved after cycle 4; a cycle waits out gone.demo's 1 s deadline.
        let after = try session.waitForScreen(timeout: 40) { screen in
            screen.contains("BLOCKED shop.demo:") && shopRow(screen)?.contains("✗ blocked") == true
        }
        let banner = after.split(separator: "\n").first { $0.contains("BLOCKED shop.demo:") } ?? ""
        XCTAssertTrue(banner.contains("no configured pin matches the chain"), String(banner))
        XCTAssertTrue(after.contains("renewed under a sibling pool intermediate"), "the footer says what happened: \(after)")

        try session.send("q")
        let exited = try session.waitForScreen(timeout: 10) { $0.contains("EXITED:") }
        XCTAssertTrue(exited.contains("EXITED:0"), exited)
    }

    /// Before the rotation shop.demo is not simply ok: only its intermediate
    /// pin matches and the demo catalogue's pool has four intermediates it
    /// misses, so it carries the `intermediate_pool` warning naming the root
    /// to add. (The alert comes from the next-chain reasoning of DESIGN §10.)
    func testThePoolPinnedHostCarriesTheIntermediatePoolWarningBeforeTheRotation() throws {
        let outcome = try PinwatchBinary.run(["demo", "--snapshot", "--format", "json"], timeout: 30)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any])
        let hosts = try XCTUnwrap(document["hosts"] as? [[String: Any]])
        let shop = try XCTUnwrap(hosts.first { $0["host"] as? String == "shop.demo" })
        XCTAssertEqual(shop["status"] as? String, "ok", "clients still accept the chain today")
        let alerts = shop["alerts"] as? [String] ?? []
        XCTAssertTrue(alerts.contains("intermediate_pool"), "shop.demo alerts: \(alerts)")
        XCTAssertEqual(shop["severity"] as? String, "warning")
        let reason = shop["reason"] as? String ?? ""
        XCTAssertTrue(reason.contains("Demo Pool Root"), "the reason names the pin to add: \(reason)")
    }
}
