import Foundation
import PinwatchCore
import PinwatchLocalWorld
import PinwatchMonitor
import PinwatchProbe
import PinwatchTestSupport
import XCTest

/// DESIGN §10 and §8: a snapshot with known next chains — a pooled intermediate pin
/// with its recommended root, a release that survives, another that does
/// not — validates against docs/snapshot.schema.json.
final class NextChainSchemaTests: XCTestCase {
    private var servers: [LocalTLSServer] = []
    private var directory = ""

    override func setUpWithError() throws {
        let probe = try PinwatchBinary.runShell("\(SnapshotSchema.python) -c 'import jsonschema'")
        try TestEnvironment.require(
            probe.status == 0, "python3-jsonschema is not installed: apt-get install python3-jsonschema", skip: { XCTSkip($0) })
        directory = NSTemporaryDirectory() + "pinwatch-next-chains-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        servers.forEach { $0.stop() }
        servers.removeAll()
        try? FileManager.default.removeItem(atPath: directory)
    }

    func testASnapshotWithNextChainsMatchesTheSchema() throws {
        let pool = try LocalCAPool(
            rootName: "Schema Test Root", intermediateNames: ["SR1", "SR2", "SR3", "SR4", "SR5"], organization: "Schema Test CA")
        let leaf = try pool.intermediates[0].issueLeaf(commonName: "schema.test", dnsNames: ["schema.test"])
        let server = try LocalTLSServer(identity: Identity(leaf: leaf, intermediates: [pool.intermediates[0].certificate]))
        servers.append(server)
        func pin(_ authority: CertificateAuthority) -> Pin {
            let digest = authority.certificate.facts.spkiSHA256
            return Pin(kind: .spki, digest: digest, text: PinText.sha256(digest))
        }
        func release(_ name: String, _ authority: CertificateAuthority) -> ClientPolicy {
            let rule = ClientPinRule(domain: "schema.test", pins: [pin(authority)], origin: "\(name).xml:3")
            return ClientPolicy(name: name, pins: ImportedPins(file: "\(name).xml", format: .nsc, rules: [rule]))
        }
        let host = HostConfig(
            host: "schema.test", port: server.port, connectAddress: "127.0.0.1", trust: .pem(pool.root.certificate.pem),
            pins: PinSet(ca: [pin(pool.intermediates[0])]))
        var config = Config(timeout: 5, hosts: [host])
        config.catalogue = Catalogue(families: [pool.catalogueFamily(name: "schema", displayName: "Schema Test CA")])
        config.clients = [release("android 5.2", pool.intermediates[0]), release("android 6.0", pool.root)]
        let reports = HostPoller(config: config, environment: [:]).runCycle()
        XCTAssertEqual(reports.first?.alerts, [.intermediatePool])
        XCTAssertEqual(reports.first?.nextChains?.recommended.count, 1)

        let file = directory + "/snapshot.json"
        try JSONReport.render(reports, generatedAt: Date()).write(toFile: file, atomically: true, encoding: .utf8)
        let verdict = try SnapshotSchema.validate(file)
        XCTAssertEqual(verdict.status, 0, verdict.stderr)
    }
}
