import XCTest

@testable import PinwatchCore

/// `pinwatch init`'s file: CA-tier pins only, loadable whatever the
/// server's subjects say, and what could not be probed left in a comment.
final class InitialConfigTests: XCTestCase {
    private typealias F = Fixtures

    func testHostileSubjectsAndErrorsStayInCommentsAndTheFileLoads() throws {
        var chain = F.chain()
        chain[1].facts.subject = "CN=x\nhosts:\n  - host: injected.example"
        chain[2].facts.subject = "CN=\u{1B}]0;title\u{07} # more"
        let answered = F.report(HostConfig(host: "api.example.com", port: 8443), F.result(chain: chain))
        let failed = F.report(
            HostConfig(host: "down.example"),
            .failed(ProbeFailure(kind: .refused, message: "refused\nhosts:\n  - host: evil.example"), elapsed: 0.01))
        let text = InitialConfig.yaml(reports: [answered, failed], timeout: "3s", trust: .bundle("/etc/ca x.pem"), now: F.now)

        // The bundle's path is asked for by name; one certificate's digest stands for its contents.
        let config = try ConfigLoader { path in path == "/etc/ca x.pem" ? [F.digest(3)] : [] }.load(yaml: text, path: "/tmp/init.yaml")
        XCTAssertEqual(config.hosts.map(\.displayName), ["api.example.com:8443"])
        XCTAssertEqual(config.hosts[0].pins.ca.map(\.digest), [F.digest(2), F.digest(3)], "intermediate and root")
        XCTAssertEqual(config.hosts[0].pins.leaf, [], "never the leaf")
        XCTAssertEqual(config.timeout, 3)
        XCTAssertEqual(config.trust, .bundle("/etc/ca x.pem"))
        XCTAssertFalse(text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, text)
        XCTAssertTrue(text.contains("#   down.example:443: refused: refused"), text)
        XCTAssertTrue(text.contains("not your apps' pins"), text)
    }

    func testAnUntrustedChainIsWrittenWithWhyAndAOneCertificateChainHasNoPins() throws {
        let untrusted = F.report(HostConfig(host: "self.example"), F.result(chain: F.chain(), trusted: false))
        let single = F.report(HostConfig(host: "one.example"), F.result(chain: [F.certificate("CN=one", key: 9)]))
        let text = InitialConfig.yaml(reports: [untrusted, single], timeout: nil, trust: .system, now: F.now)
        let config = try ConfigLoader { _ in [] }.load(yaml: text, path: "/tmp/init.yaml")
        XCTAssertEqual(config.hosts.map(\.host), ["self.example", "one.example"])
        XCTAssertTrue(text.contains("# the chain is not trusted: unable to get local issuer certificate"), text)
        XCTAssertTrue(config.hosts[1].pins.isEmpty)
        XCTAssertTrue(text.contains("no intermediate or root to pin"), text)
        XCTAssertFalse(text.contains("timeout:") || text.contains("trust:"), text)
    }
}
