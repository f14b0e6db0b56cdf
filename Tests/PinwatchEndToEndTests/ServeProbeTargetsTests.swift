import Foundation
import PinwatchProbe
import PinwatchTestSupport
import XCTest

/// `/probe` is no port scanner (DESIGN §16): only configured hosts by
/// default, any target when `probe_targets: any`, and with networks only
/// targets whose resolved address lies inside one.
final class ServeProbeTargetsTests: ServeOnFleetTestCase {
    /// Every spelling of loopback a caller might try for the internal server
    /// that reads as a host name or address.
    private func spellings(of port: Int) -> [String] {
        ["0x7f000001", "127.0.0.1", "localhost", "0.0.0.0", "%5B::ffff:127.0.0.1%5D"].map { "\($0):\(port)" }
    }

    /// The resolver's decimal shorthands are neither an IPv4 address nor a
    /// host name (the last label is all digits): refused as written, as in
    /// the configuration, whatever `probe_targets` allows.
    private func assertShorthandsRefused(port: Int, hidden: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        for target in ["127.1:\(hidden)", "2130706433:\(hidden)"] {
            let answer = try LoopbackHTTP.get(port: port, "/probe?target=\(target)")
            XCTAssertEqual(answer.status, 400, "\(target): \(answer.body)", file: file, line: line)
            XCTAssertTrue(answer.body.contains("neither an IPv4 address"), answer.body, file: file, line: line)
        }
    }

    func testOnlyConfiguredHostsAreProbedByDefault() throws {
        let ok = try fleet.addOK("ok.test")
        let (hidden, _) = try fleet.serveLeaf("internal.test")
        try fleet.writeConfig()
        let port = try startServe()

        XCTAssertEqual(try LoopbackHTTP.get(port: port, "/probe?target=ok.test:\(ok.port)").status, 200)
        let before = hidden.acceptedConnections
        for target in spellings(of: hidden.port) + ["%5B::1%5D:\(hidden.port)", "ok.test:\(hidden.port)"] {
            let answer = try LoopbackHTTP.get(port: port, "/probe?target=\(target)")
            XCTAssertEqual(answer.status, 403, "\(target): \(answer.body)")
            XCTAssertTrue(answer.body.contains("is not a configured host"), answer.body)
            XCTAssertFalse(answer.body.contains("internal.test"), "nothing of the internal server: \(answer.body)")
        }
        try assertShorthandsRefused(port: port, hidden: hidden.port)
        XCTAssertEqual(hidden.acceptedConnections, before, "no connection was made")
    }

    func testAnyProbesEveryTargetWhenChosen() throws {
        let (hidden, _) = try fleet.serveLeaf("internal.test")
        try fleet.writeConfig(settings: ["probe_targets: any"])
        let port = try startServe()
        let answer = try LoopbackHTTP.get(port: port, "/probe?target=127.0.0.1:\(hidden.port)")
        XCTAssertEqual(answer.status, 200, answer.body)
        XCTAssertTrue(answer.body.contains("subject=\"CN=internal.test"), answer.body)
    }

    func testNetworksCheckTheResolvedAddressBeforeConnecting() throws {
        let (hidden, _) = try fleet.serveLeaf("internal.test")
        try fleet.writeConfig(settings: ["probe_targets: [10.0.0.0/8, \"2001:db8::/32\"]"])
        let outside = try startServe()
        for target in spellings(of: hidden.port) {
            let answer = try LoopbackHTTP.get(port: outside, "/probe?target=\(target)")
            XCTAssertEqual(answer.status, 403, "\(target): \(answer.body)")
            XCTAssertTrue(answer.body.contains("has no address inside probe_targets"), answer.body)
            if !target.contains("127.0.0.1") {
                XCTAssertFalse(answer.body.contains("127.0.0.1"), "the resolved address is not echoed: \(answer.body)")
            }
        }
        try assertShorthandsRefused(port: outside, hidden: hidden.port)
        XCTAssertEqual(hidden.acceptedConnections, 0, "refused before connecting")

        try fleet.writeConfig(settings: ["probe_targets: [127.0.0.0/8]"])
        let inside = try startServe()
        // The hexadecimal spelling is resolved to 127.0.0.1, which is inside.
        let answer = try LoopbackHTTP.get(port: inside, "/probe?target=0x7f000001:\(hidden.port)")
        XCTAssertEqual(answer.status, 200, answer.body)
        XCTAssertTrue(answer.body.contains("pinwatch_probe_success 1"), answer.body)
        XCTAssertGreaterThan(hidden.acceptedConnections, 0)
    }
}
