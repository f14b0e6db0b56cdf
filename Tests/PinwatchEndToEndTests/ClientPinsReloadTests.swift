import Foundation
import PinwatchCore
import PinwatchProbe
import PinwatchTestSupport
import XCTest

/// A client pin file edited while `watch` or `serve` runs is read again
/// without a signal: the release that pinned only the leaf is fixed by a
/// new app build, and the monitor follows.
final class ClientPinsReloadTests: LocalFleetTestCase {
    private var api: LocalFleet.Host!
    private var processes: [BackgroundProcess] = []

    override func setUpWithError() throws {
        try super.setUpWithError()
        let served = try fleet.serveLeaf("api.test")
        api = LocalFleet.Host(name: "api.test", port: served.server.port, leafCertificate: served.leaf.certificate)
        fleet.add(api)
    }

    override func tearDown() {
        processes.forEach { $0.stop() }
        super.tearDown()
    }

    /// TrustKit JSON pinning `pin` and a backup for api.test.
    private func writeTrustKit(pinning pin: String) throws {
        let backup = try LocalFleet.unrelatedPin()
        try fleet.write(
            "{\"TSKPinnedDomains\": {\"api.test\": {\"TSKPublicKeyHashes\": [\"\(pin.dropFirst(7))\", \"\(backup.dropFirst(7))\"]}}}",
            to: "trustkit.json")
    }

    private var leafPin: String { LocalFleet.pin(api.leafCertificate!) }
    private var rootPin: String { LocalFleet.pin(fleet.root.certificate) }

    func testServeFollowsAnEditedClientFile() throws {
        try writeTrustKit(pinning: leafPin)
        let config = try fleet.writeConfig(
            settings: ["interval: 1s", "clients:", "  - {name: ios 7.0, trustkit: trustkit.json}"], timeout: "1s")
        let port = try LocalPorts.closedPort()
        let serve = try BackgroundProcess(
            PinwatchBinary.url.path, ["serve", "--config", config.path, "--listen", "127.0.0.1:\(port)"], directory: fleet.directory,
            name: "serve")
        processes.append(serve)
        func status(_ name: String) -> Bool {
            guard let body = try? LoopbackHTTP.get(port: port, "/metrics", timeout: 2).body else { return false }
            return body.split(separator: "\n").contains {
                $0.hasPrefix("pinwatch_host_reason_info{") && $0.contains("host=\"api.test\"") && $0.contains(",status=\"\(name)\",")
            }
        }
        try waitUntil(timeout: 20, "api.test leaf_only for ios 7.0: \(serve.stderr)") { status("leaf_only") }
        try writeTrustKit(pinning: rootPin)
        try waitUntil(timeout: 20, "api.test ok after the file changed: \(serve.stderr)") { status("ok") }
        XCTAssertTrue(serve.stderr.contains("a client pin file changed"), serve.stderr)
    }

    func testTheDashboardFollowsAnEditedClientFile() throws {
        try writeTrustKit(pinning: leafPin)
        let config = try fleet.writeConfig(
            settings: ["interval: 1s", "clients:", "  - {name: ios 7.0, trustkit: trustkit.json}"], timeout: "1s")
        let invocation = [PinwatchBinary.url.path, "watch", "--config", config.path, "--no-bell"].map(TmuxSession.quote).joined(
            separator: " ")
        let session = try TmuxSession(command: invocation, columns: 150, rows: 20)
        defer { session.close() }
        try session.waitForScreen { $0.contains("api.test") && $0.contains("LEAF ONLY") }
        try writeTrustKit(pinning: rootPin)
        let screen = try session.waitForScreen { $0.contains("a client pin file changed: configuration reloaded") }
        XCTAssertFalse(screen.containsControlBytes)
        try session.waitForScreen { $0.contains("✓ ok") && !$0.contains("LEAF ONLY") }
        try session.send("q")
    }
}
