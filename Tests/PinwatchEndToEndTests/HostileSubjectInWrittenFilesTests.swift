import Foundation
import PinwatchLocalWorld
import PinwatchProbe
import PinwatchTestSupport
import XCTest

/// A root whose subject carries YAML after U+2028 (a line break to YAML,
/// not to a filter of LF and CR), served in full by a local server: the
/// files `init` and `preflight --format stanza` write from it load as
/// exactly what they meant, with no hook, listener or probe policy added.
final class HostileSubjectInWrittenFilesTests: LocalFleetTestCase {
    /// Written raw after `# root: `, this would make the rest top-level keys.
    private static let payload = [
        "O=Example CA", "probe_targets: any", "listen: 0.0.0.0:19699", "hooks:", "  - - /bin/sh", "    - -c", "    - touch PWNED",
        "#",
    ].joined(separator: "\u{2028}")

    private var root: CertificateAuthority!
    private var intermediate: CertificateAuthority!
    private var trust: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        // `name` (ub-name: 32768) holds the whole payload; O and CN stop at 64.
        root = try CertificateAuthority.makeRoot(commonName: "Hostile Root", subjectExtras: [("name", Self.payload)])
        intermediate = try root.issueIntermediate(commonName: "Hostile Issuing CA")
        trust = try fleet.write(root.certificate.pem, to: "hostile-root.pem")
    }

    func testInitFromAHostileRootWritesNoKeyItDidNotMean() throws {
        let leaf = try intermediate.issueLeaf(commonName: "hostile.test", ipAddresses: ["127.0.0.1"])
        let server = try fleet.keep(
            LocalTLSServer(identity: Identity(leaf: leaf, intermediates: [intermediate.certificate, root.certificate])))
        let outcome = try fleet.run(["init", "127.0.0.1:\(server.port)", "--trust", trust.path, "-o", "out.yaml"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let written = try String(contentsOf: fleet.directory.appendingPathComponent("out.yaml"), encoding: .utf8)
        XCTAssertTrue(written.contains("# root: "), "the root's subject is named:\n\(written)")
        XCTAssertFalse(written.unicodeScalars.contains { $0.value == 0x2028 }, written)
        XCTAssertTrue(written.contains("\\u2028probe_targets: any"), "escaped, still readable:\n\(written)")

        let validate = try fleet.run(["validate", "--config", "out.yaml"])
        XCTAssertEqual(validate.status, 0, validate.stdout + validate.stderr)
        XCTAssertTrue(validate.stdout.hasSuffix("out.yaml: valid, 1 host\n"), "no hook: \(validate.stdout)")
        let keys = written.split(separator: "\n").filter { !$0.hasPrefix(" ") && !$0.hasPrefix("#") }.map { $0.prefix { $0 != ":" } }
        XCTAssertEqual(keys, ["trust", "hosts"], written)
        XCTAssertFalse(FileManager.default.fileExists(atPath: fleet.directory.appendingPathComponent("PWNED").path))
    }

    func testPreflightsStanzaFromAHostileRootHoldsOnlyTheEntry() throws {
        let leaf = try intermediate.issueLeaf(commonName: "api.test", dnsNames: ["api.test"])
        let chain = try fleet.write(leaf.certificate.pem + intermediate.certificate.pem + root.certificate.pem, to: "chain.pem")
        let config = try fleet.write("trust: hostile-root.pem\nhosts:\n  - host: api.test\n", to: "pinwatch.yaml")
        let outcome = try fleet.run(["preflight", "api.test", "--chain", chain.path, "--config", config.path, "--format", "stanza"])
        XCTAssertFalse(outcome.stdout.unicodeScalars.contains { $0.value == 0x2028 }, outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("\\u2028hooks:"), outcome.stdout)
        try fleet.write(outcome.stdout, to: "pasted.yaml")
        let validate = try fleet.run(["validate", "--config", "pasted.yaml"])
        XCTAssertTrue(validate.stdout.hasSuffix("pasted.yaml: valid, 1 host\n"), validate.stdout + validate.stderr)
    }
}
