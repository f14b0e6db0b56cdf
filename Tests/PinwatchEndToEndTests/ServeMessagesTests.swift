import Foundation
import PinwatchProbe
import PinwatchTestSupport
import XCTest

/// Issue 29, "First steps and messages": what `serve` says when it cannot
/// listen, and what `/probe` says to a URL, through the built binary.
final class ServeMessagesTests: ServeOnFleetTestCase {
    func testAnAddressInUseIsSaidInPlainWordsWithTheAddress() throws {
        try fleet.addOK("ok.test")
        try fleet.writeConfig()
        let port = try startServe()
        let second = try fleet.run(
            ["serve", "--config", fleet.configURL.path, "--listen", "127.0.0.1:\(port)", "--state", "off"], timeout: 20)
        XCTAssertEqual(second.status, 2, second.stderr)
        XCTAssertEqual(
            second.stderr.split(separator: "\n").first.map(String.init),
            "pinwatch: cannot listen on 127.0.0.1:\(port): the address is already in use "
                + "(another pinwatch serve? `ss -ltnp` shows what listens there)")
        XCTAssertFalse(second.stderr.contains("errno"), second.stderr)
    }

    func testAURLAsProbeTargetGetsTheHostHint() throws {
        let ok = try fleet.addOK("ok.test")
        try fleet.writeConfig()
        let port = try startServe()
        let url = "https://ok.test:\(ok.port)/health"
        let encoded = try XCTUnwrap(url.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let answer = try LoopbackHTTP.get(port: port, "/probe?target=\(encoded)")
        XCTAssertEqual(answer.status, 400, answer.body)
        XCTAssertEqual(answer.body, "target \"\(url)\" is a URL; write target=ok.test:\(ok.port)\n")
        let bare = try LoopbackHTTP.get(port: port, "/probe?target=https%3A%2F%2Fok.test")
        XCTAssertEqual(bare.body, "target \"https://ok.test\" is a URL; write target=ok.test\n")
        // What the hint says works.
        let probed = try LoopbackHTTP.get(port: port, "/probe?target=ok.test:\(ok.port)")
        XCTAssertEqual(probed.status, 200, probed.body)
    }
}
