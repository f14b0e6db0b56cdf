import PinwatchSystem
import XCTest

@testable import PinwatchCore

/// `starttls:` per host: parsed, carried to the probe target, and refused
/// with the protocols it takes.
final class StartTLSConfigTests: XCTestCase {
    private func load(_ yaml: String) throws(ConfigError) -> Config {
        try ConfigLoader(
            certificateDigests: { _ in [] },
            readText: { path, limit throws(RegularFile.ReadError) in try RegularFile.readText(path, limit: limit) }
        ).load(yaml: yaml, path: "/nonexistent/pinwatch.yaml")
    }

    private func problems(_ yaml: String) -> [ConfigProblem] {
        do {
            _ = try load(yaml)
            XCTFail("expected a configuration error")
            return []
        } catch {
            return error.problems
        }
    }

    func testStarttlsSetsTheHostsDialogueAndItsProbeTarget() throws {
        let config = try load(
            """
            hosts:
              - host: mail.example
                port: 25
                starttls: smtp
              - host: db.example:5432
                starttls: postgres
              - {host: chat.example, port: 5222, starttls: xmpp}
              - {host: imap.example, port: 143, starttls: imap}
              - host: www.example

            """)
        XCTAssertEqual(config.hosts.map(\.starttls), [.smtp, .postgres, .xmpp, .imap, nil])
        XCTAssertEqual(config.hosts.map(\.port), [25, 5432, 5222, 143, 443], "the port is what the host says")
        XCTAssertEqual(config.probeTargets(environment: [:]).map(\.starttls), [.smtp, .postgres, .xmpp, .imap, nil])
    }

    /// A port that speaks TLS from its first byte has no greeting: the
    /// probe would wait its whole timeout for one. Said at load, at once.
    func testATLSAtOncePortIsRefusedBeforeAnyProbe() {
        let found = problems(
            """
            hosts:
              - {host: mail.example, port: 465, starttls: smtp}
              - {host: imap.example:993, starttls: imap}
              - {host: mail.example, starttls: smtp}
              - {host: mail.example, port: 587, starttls: smtp}

            """)
        XCTAssertEqual(found.map(\.key), ["hosts[0].starttls", "hosts[1].starttls", "hosts[2].starttls"])
        XCTAssertEqual(
            found.first?.message,
            "port 465 speaks TLS at once (SMTP submission over TLS), with no SMTP greeting to answer: "
                + "remove starttls:, or name the STARTTLS port (port: 25 or 587)")
        XCTAssertTrue(found.last?.message.hasPrefix("port 443 speaks TLS at once (HTTPS)") == true, "no port: 443 is assumed")
    }

    func testAnUnknownProtocolIsRefusedWithTheOnesItTakes() {
        let found = problems("hosts:\n  - host: mail.example\n    starttls: smpt\n")
        XCTAssertEqual(found.map(\.key), ["hosts[0].starttls"])
        XCTAssertEqual(found.map(\.line), [3])
        XCTAssertEqual(
            found.map(\.message), ["unknown protocol \"smpt\" (one of: smtp, imap, xmpp, postgres) (did you mean smtp?)"])
    }

    func testAMisspeltKeyIsSuggested() {
        let found = problems("hosts:\n  - host: mail.example\n    startls: smtp\n")
        XCTAssertEqual(found.map(\.message), ["unknown key (did you mean starttls?)"])
    }
}
