import Foundation
import PinwatchCore
import PinwatchLocalWorld
import PinwatchProbe
import XCTest

/// Next chains (DESIGN §10) end to end through the binary: a private PKI's five-intermediate
/// pool declared with `catalogue:` in the configuration, and hosts on local
/// TLS servers judged against it by `snapshot`.
final class NextChainsFromConfigTests: XCTestCase {
    private var servers: [LocalTLSServer] = []
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pinwatch-pool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        servers.forEach { $0.stop() }
        try? FileManager.default.removeItem(at: directory)
    }

    private func write(_ text: String, _ name: String) throws {
        try text.write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
    }

    func testAHostPinnedToOneIntermediateOfADeclaredPoolIsWarnedAndTheRootRecommended() throws {
        let names = ["Corp Issuing 1", "Corp Issuing 2", "Corp Issuing 3", "Corp Issuing 4", "Corp Issuing 5"]
        let pool = try LocalCAPool(rootName: "Corp Root", intermediateNames: names, organization: "Corp")
        try write(pool.root.certificate.pem, "corp-root.pem")
        for (index, intermediate) in pool.intermediates.enumerated() { try write(intermediate.certificate.pem, "issuing-\(index + 1).pem") }

        func serve(_ name: String) throws -> Int {
            let leaf = try pool.intermediates[0].issueLeaf(commonName: name, dnsNames: [name])
            let server = try LocalTLSServer(identity: Identity(leaf: leaf, intermediates: [pool.intermediates[0].certificate]))
            servers.append(server)
            return server.port
        }
        let intermediatePin = PinText.sha256(pool.intermediates[0].certificate.facts.spkiSHA256)
        let rootPin = PinText.sha256(pool.root.certificate.facts.spkiSHA256)
        try write(
            """
            timeout: 5s
            trust: corp-root.pem
            state: off
            catalogue:
              - name: corp
                roots: [corp-root.pem]
                intermediates: [issuing-1.pem, issuing-2.pem, issuing-3.pem, issuing-4.pem, issuing-5.pem]
            hosts:
              - host: pooled.corp
                port: \(try serve("pooled.corp"))
                connect: 127.0.0.1
                pins:
                  ca: [\(intermediatePin)]
              - host: rooted.corp
                port: \(try serve("rooted.corp"))
                connect: 127.0.0.1
                pins:
                  ca: [\(rootPin)]
            """, "pinwatch.yaml")

        let outcome = try PinwatchBinary.run(
            ["snapshot", "--format", "json", "--config", directory.appendingPathComponent("pinwatch.yaml").path],
            environment: ["XDG_DATA_HOME": directory.appendingPathComponent("data").path], timeout: 30)
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any], outcome.stderr)
        let hosts = try XCTUnwrap(document["hosts"] as? [[String: Any]])
        let pooled = try XCTUnwrap(hosts.first { $0["host"] as? String == "pooled.corp" })
        let rooted = try XCTUnwrap(hosts.first { $0["host"] as? String == "rooted.corp" })

        XCTAssertEqual(pooled["status"] as? String, "ok", "clients accept the chain today")
        XCTAssertEqual(pooled["severity"] as? String, "warning")
        XCTAssertEqual(pooled["alerts"] as? [String], ["intermediate_pool"])
        let reason = pooled["reason"] as? String ?? ""
        XCTAssertTrue(reason.contains("4 of 5 next chains break pinned clients"), reason)
        XCTAssertTrue(reason.contains("Corp Root"), reason)
        let recommended = try XCTUnwrap(pooled["recommended_pins"] as? [[String: Any]])
        XCTAssertEqual(recommended.map { $0["pin"] as? String }, [rootPin])
        let survives = try XCTUnwrap(pooled["survives"] as? [String: Any])
        XCTAssertEqual(survives["leaf_renewal"] as? Bool, true)
        XCTAssertEqual(survives["intermediate_rotation"] as? Bool, false)

        XCTAssertEqual(rooted["severity"] as? String, "ok", "a root pin survives every rotation of the pool")
        XCTAssertEqual(rooted["alerts"] as? [String], [])
        XCTAssertEqual((rooted["survives"] as? [String: Any])?["intermediate_rotation"] as? Bool, true)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
    }
}
