import Foundation
import PinwatchProbe
import PinwatchTestSupport
import XCTest

/// What `serve` says when it cannot
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

    /// `--listen` and `--state` (the systemd unit passes `--state`) win
    /// over the file's keys: said at start, so that an edit of `listen:` or
    /// `state:` that changes nothing does not go unexplained.
    func testFlagsThatOverrideTheFilesKeysAreSaidAtStart() throws {
        try fleet.addOK("ok.test")
        try fleet.writeConfig(settings: ["listen: 127.0.0.1:1", "state: kept.sqlite"])
        let (_, process) = try startServeProcess(state: "off")
        let notices = process.stderr.split(separator: "\n").filter { $0.contains("level=notice") && $0.contains("overrides") }
        XCTAssertEqual(notices.count, 2, process.stderr)
        XCTAssertTrue(
            notices.contains {
                $0.contains("msg=\"--listen overrides listen: in the configuration") && $0.contains("configured=127.0.0.1:1")
            }, "\(notices)")
        XCTAssertTrue(
            notices.contains { $0.contains("msg=\"--state overrides state: in the configuration") && $0.contains("state=off") },
            "\(notices)")

        try fleet.writeConfig()
        let (_, quiet) = try startServeProcess()
        XCTAssertFalse(quiet.stderr.contains("overrides"), "nothing to say when the file sets neither: \(quiet.stderr)")
    }

    /// A transition's log line names the entry as its series do: two
    /// backends of one name (`connect:`) are told apart.
    func testATransitionsLogLineNamesTheAddressItDialled() throws {
        let leafOnly = try fleet.addLeafOnly("leaf.test")
        try fleet.writeConfig()
        let (_, process) = try startServeProcess()
        try waitUntil(timeout: 20, "a transition logged: \(process.stderr)") { process.stderr.contains("msg=\"severity changed\"") }
        let line = try XCTUnwrap(process.stderr.split(separator: "\n").first { $0.contains("msg=\"severity changed\"") })
        XCTAssertTrue(line.contains("host=leaf.test:\(leafOnly.port)"), String(line))
        XCTAssertTrue(line.contains("address=127.0.0.1"), String(line))
    }
}
