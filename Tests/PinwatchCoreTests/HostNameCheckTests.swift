import PinwatchCore
import XCTest

/// Host names hold letters, digits, `-`, `_` and `.`, or are IP addresses
/// (README, "Limits and hostile input"): nothing else reaches a metric label, a log or a hook.
final class HostNameCheckTests: XCTestCase {
    func testCharactersNoHostNameHasAreRefusedByName() throws {
        for character in ["@", ":", "\"", " ", "\\", "<", ">", "&", "$", "(", ")", ";", "|", "{", "}", "=", ",", "'", "`", "/", "*", "%"] {
            let name = "ab\(character)c.example"
            let problem = try XCTUnwrap(HostNameCheck.problem(name), name)
            XCTAssertTrue(problem.contains("'\(character)' at character 3"), problem)
            XCTAssertTrue(problem.contains("is not a host name or IP address"), problem)
        }
        let reversed = try XCTUnwrap(HostNameCheck.problem("moc.\u{202E}evil.example"))
        XCTAssertTrue(reversed.contains("U+202E at character 5"), reversed)
        XCTAssertFalse(reversed.unicodeScalars.contains("\u{202E}"), "the character itself is never echoed")
        XCTAssertNotNil(HostNameCheck.problem("zero\u{200B}width.example"))
        XCTAssertNotNil(HostNameCheck.problem("a\u{FF0F}b.example"), "a full-width solidus is no letter")
        XCTAssertNotNil(HostNameCheck.problem("user:secret@api.example.com"))
        XCTAssertNotNil(HostNameCheck.problem("a.test:8443"), "a port is not part of the name")
    }

    func testNamesIDNsAndAddressesAreAccepted() {
        for name in [
            "api.example.com", "API-2.example.com.", "_dmarc.example.com", "xn--bcher-kva.example", "bücher.example",
            "пример.испытание", "例え.テスト", "नमस्ते.example", "127.0.0.1", "2001:db8::1", "::ffff:192.0.2.1", "localhost",
        ] {
            XCTAssertNil(HostNameCheck.problem(name), name)
        }
    }

    func testTheConfigurationSaysWhichHostAndWhere() {
        let loader = ConfigLoader { _ in [] }
        do {
            _ = try loader.load(
                yaml: "hosts:\n  - host: ok.example\n  - host: \"a;b.example\"\n  - host: c.example\n    sni: \"x`y\"\n",
                path: "/etc/pinwatch.yaml")
            XCTFail("accepted")
        } catch {
            let text = "\(error)"
            XCTAssertTrue(text.contains("/etc/pinwatch.yaml:3"), text)
            XCTAssertTrue(text.contains("hosts[1].host"), text)
            XCTAssertTrue(text.contains("';' at character 2"), text)
            XCTAssertTrue(text.contains("/etc/pinwatch.yaml:5"), text)
            XCTAssertTrue(text.contains("hosts[2].sni"), text)
            XCTAssertTrue(text.contains("'`' at character 2"), text)
        }
        let ported = try? loader.load(yaml: "hosts:\n  - host: a.example:8443\n  - host: \"[2001:db8::1]:8443\"\n", path: "/p.yaml")
        XCTAssertEqual(ported?.hosts.map(\.port), [8443, 8443], "host:port still sets the port")
    }

    func testProbeTargetsWithCredentialsAreRefused() {
        for target in ["user:secret@api.example.com:443", "user@api.example.com", "api.example.com@evil.example:443"] {
            guard case .failure(let problem) = ProbeQuery.parse([(name: "target", value: target)]) else {
                return XCTFail("\(target) accepted")
            }
            XCTAssertTrue(problem.description.contains("is not a host name or IP address"), problem.description)
        }
    }
}
