import PinwatchSystem
import XCTest

@testable import PinwatchCore

/// `revocation:` at the top and per host: hosts inherit the top level's,
/// an entry's own wins, the probe target carries it, and a value that is
/// neither on nor off is refused where it is written.
final class RevocationConfigTests: XCTestCase {
    private func load(_ yaml: String) throws(ConfigError) -> Config {
        try ConfigLoader(
            certificateDigests: { _ in [] },
            readText: { path, limit throws(RegularFile.ReadError) in try RegularFile.readText(path, limit: limit) }
        ).load(yaml: yaml, path: "/nonexistent/pinwatch.yaml")
    }

    func testHostsInheritTheTopLevelAndTheirOwnWins() throws {
        let on = try load(
            """
            hosts:
              - host: a.example
              - {host: b.example, revocation: off}

            """)
        XCTAssertTrue(on.checksRevocation, "on unless said otherwise")
        XCTAssertEqual(on.hosts.map(\.checksRevocation), [true, false])
        XCTAssertEqual(on.probeTargets(environment: [:]).map(\.checksRevocation), [true, false])

        let off = try load(
            """
            revocation: off
            hosts:
              - host: a.example
              - {host: b.example, revocation: on}

            """)
        XCTAssertFalse(off.checksRevocation)
        XCTAssertEqual(off.hosts.map(\.checksRevocation), [false, true])
        XCTAssertEqual(off.probeTargets(environment: [:]).map(\.checksRevocation), [false, true])
    }

    func testAValueThatIsNeitherOnNorOffIsRefusedWhereItIsWritten() {
        do {
            _ = try load(
                """
                revocation: sometimes
                hosts:
                  - {host: a.example, revocation: crl}
                  - {host: b.example, revocaton: off}

                """)
            XCTFail("expected a configuration error")
        } catch {
            XCTAssertEqual(error.problems.map(\.key), ["revocation", "hosts[0].revocation", "hosts[1].revocaton"])
            XCTAssertEqual(error.problems.first?.message, "expected true or false, found \"sometimes\"")
            XCTAssertTrue(error.problems.last?.message.contains("revocation") ?? false, "\(error.problems)")
        }
    }
}
