import Foundation
import PinwatchLocalWorld
import PinwatchProbe
import PinwatchTestSupport
import XCTest

/// `pinwatch init` (DESIGN §7): a first configuration from live local
/// chains that validates, checks ok, and says whose pins it holds.
final class CommandsInitTests: LocalFleetTestCase {
    /// A server whose leaf names 127.0.0.1, so `init 127.0.0.1:PORT` verifies
    /// without an `sni:` the command does not take.
    private func serveOnLoopbackAddress(_ name: String) throws -> LocalTLSServer {
        let leaf = try fleet.issuing.issueLeaf(commonName: name, ipAddresses: ["127.0.0.1"])
        return try fleet.keep(LocalTLSServer(identity: Identity(leaf: leaf, intermediates: [fleet.issuing.certificate])))
    }

    func testTheWrittenConfigurationValidatesChecksOkAndSaysTheseAreTheLivePins() throws {
        let first = try serveOnLoopbackAddress("first.test")
        let second = try serveOnLoopbackAddress("second.test")
        let outcome = try fleet.run([
            "init", "127.0.0.1:\(first.port)", "127.0.0.1:\(second.port)", "--trust", fleet.trustURL.path, "--timeout", "5s",
        ])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertEqual(outcome.stdout, "wrote pinwatch.yaml: 2 hosts\n")
        let written = try String(contentsOf: fleet.configURL, encoding: .utf8)

        // The CA tier: the intermediate and the root the trust store supplied, never the leaf.
        let intermediatePin = LocalFleet.pin(fleet.issuing.certificate)
        let rootPin = LocalFleet.pin(fleet.root.certificate)
        XCTAssertEqual(written.components(separatedBy: intermediatePin).count - 1, 2, written)
        XCTAssertEqual(written.components(separatedBy: rootPin).count - 1, 2, written)
        XCTAssertEqual(written.components(separatedBy: "    pins:\n").count - 1, 2, written)
        XCTAssertFalse(written.contains("leaf:"), written)
        // Every pin block says whose pins these are.
        let blocks = written.components(separatedBy: "    pins:\n").dropLast()
        for block in blocks {
            let comment = block.split(separator: "\n").suffix(2).joined(separator: "\n")
            XCTAssertTrue(comment.contains("CA-tier pins") && comment.contains("not your apps' pins"), comment)
            XCTAssertTrue(comment.contains("pinwatch import"), comment)
        }
        XCTAssertTrue(written.contains("trust: \"\(fleet.trustURL.path)\"\n"), written)
        XCTAssertTrue(written.contains("timeout: 5s\n"), written)

        let validate = try fleet.run(["validate"])
        XCTAssertEqual(validate.status, 0, validate.stderr)
        XCTAssertTrue(validate.stdout.hasSuffix("/pinwatch.yaml: valid, 2 hosts\n"), validate.stdout)
        let check = try fleet.run(["check"])
        XCTAssertEqual(check.status, 0, check.stdout + check.stderr)
        XCTAssertTrue(check.stdout.hasPrefix("PINWATCH OK"), check.stdout)

        // lint judges the apps' pins, which init leaves to `import`: with an
        // app's pins added (a backup key among them) the file lints clean.
        let digests = [rootPin, intermediatePin, try LocalFleet.unrelatedPin()].map {
            "<pin digest=\"SHA-256\">\($0.dropFirst("sha256/".count))</pin>"
        }
        try fleet.write(
            "<network-security-config><domain-config><domain>127.0.0.1</domain><pin-set>\(digests.joined())</pin-set>"
                + "</domain-config></network-security-config>", to: "app.xml")
        try fleet.write(written + "clients:\n  - {name: android 1, nsc: app.xml}\n", to: "pinwatch.yaml")
        let lint = try fleet.run(["lint"])
        XCTAssertEqual(lint.status, 0, lint.stdout + lint.stderr)
        XCTAssertTrue(lint.stdout.contains("1 client, 2 hosts: 0 errors, 0 warnings"), lint.stdout)
    }

    func testAnExistingFileIsKeptUnlessForcedAndDashPrintsToStandardOutput() throws {
        let server = try serveOnLoopbackAddress("kept.test")
        try fleet.write("# mine\nhosts: []\n", to: "pinwatch.yaml")
        let arguments = ["init", "127.0.0.1:\(server.port)", "--trust", fleet.trustURL.path]

        let refused = try fleet.run(arguments)
        XCTAssertEqual(refused.status, 2)
        XCTAssertEqual(refused.stderr, "pinwatch: pinwatch.yaml exists; --force replaces it, -o names another file\n")
        XCTAssertEqual(try String(contentsOf: fleet.configURL, encoding: .utf8), "# mine\nhosts: []\n")

        let printed = try fleet.run(arguments + ["-o", "-"])
        XCTAssertEqual(printed.status, 0, printed.stderr)
        XCTAssertTrue(printed.stdout.hasPrefix("# pinwatch configuration written by `pinwatch init`"), printed.stdout)
        XCTAssertTrue(printed.stdout.contains(LocalFleet.pin(fleet.root.certificate)), printed.stdout)

        let forced = try fleet.run(arguments + ["--force"])
        XCTAssertEqual(forced.status, 0, forced.stderr)
        XCTAssertTrue(try String(contentsOf: fleet.configURL, encoding: .utf8).contains(LocalFleet.pin(fleet.root.certificate)))
    }

    /// A host that gives no chain is named on stderr and in the file, and
    /// left out; the exit status says not every host made it.
    func testAHostThatFailsIsNamedAndLeftOutAndNoneWritesNothing() throws {
        let server = try serveOnLoopbackAddress("up.test")
        let closed = try LocalPorts.closedPort()
        let outcome = try fleet.run([
            "init", "127.0.0.1:\(server.port)", "127.0.0.1:\(closed)", "--trust", fleet.trustURL.path, "-o", "some.yaml",
        ])
        XCTAssertEqual(outcome.status, 1, outcome.stderr)
        XCTAssertTrue(outcome.stderr.hasPrefix("pinwatch: init: 127.0.0.1:\(closed): refused: "), outcome.stderr)
        XCTAssertEqual(outcome.stdout, "wrote some.yaml: 1 host\n")
        let written = try String(contentsOf: fleet.directory.appendingPathComponent("some.yaml"), encoding: .utf8)
        XCTAssertTrue(written.contains("#   127.0.0.1:\(closed): refused: "), written)
        let validate = try fleet.run(["validate", "--config", "some.yaml"])
        XCTAssertTrue(validate.stdout.hasSuffix("some.yaml: valid, 1 host\n"), validate.stdout + validate.stderr)

        let none = try fleet.run(["init", "127.0.0.1:\(closed)", "-o", "none.yaml"])
        XCTAssertEqual(none.status, 1)
        XCTAssertTrue(none.stderr.hasSuffix("pinwatch: init: no host gave a chain: nothing written\n"), none.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: fleet.directory.appendingPathComponent("none.yaml").path))
    }
}
