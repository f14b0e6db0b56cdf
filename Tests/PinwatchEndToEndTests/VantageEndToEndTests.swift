import Foundation
import XCTest

/// DESIGN §11: `vantage:` reaches what the commands print: the JSON
/// document (valid against docs/snapshot.schema.json) and every host
/// series of the Prometheus text.
final class VantageEndToEndTests: LocalFleetTestCase {
    func testSnapshotsCarryTheVantage() throws {
        try fleet.addOK("ok.test")
        try fleet.writeConfig(settings: ["vantage: eu-office"])

        let json = try fleet.run(["snapshot", "--format", "json", "--state", "off"])
        XCTAssertEqual(json.status, 0, json.stderr)
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(document["vantage"] as? String, "eu-office")
        // python3-jsonschema is installed by .ci/run: no silent skip here.
        let verdict = try SnapshotSchema.validate(try fleet.write(json.stdout, to: "vantage.json").path)
        XCTAssertEqual(verdict.status, 0, verdict.stderr)

        let text = try fleet.run(["snapshot", "--format", "prometheus", "--state", "off"])
        XCTAssertEqual(text.status, 0, text.stderr)
        let hostSamples = text.stdout.split(separator: "\n").filter { $0.contains("host=\"ok.test\"") }
        XCTAssertFalse(hostSamples.isEmpty, text.stdout)
        XCTAssertTrue(hostSamples.allSatisfy { $0.contains(",vantage=\"eu-office\"") }, text.stdout)
        XCTAssertTrue(text.stdout.contains("pinwatch_build_info{vantage=\"eu-office\",version=\""), text.stdout)

        try fleet.writeConfig(settings: ["vantage: \"eu office\""])
        let refused = try fleet.run(["snapshot", "--format", "json"])
        XCTAssertEqual(refused.status, 2, refused.stdout)
        XCTAssertTrue(refused.stderr.contains("vantage"), refused.stderr)
    }
}
