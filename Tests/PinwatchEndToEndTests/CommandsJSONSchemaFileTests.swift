import Foundation
import PinwatchTestSupport
import XCTest

/// docs/snapshot.schema.json is the contract scripts rely on: every
/// document pinwatch prints must validate against it with a real JSON
/// Schema validator (Debian's python3-jsonschema, installed by .ci/run).
final class CommandsJSONSchemaFileTests: LocalFleetTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        let probe = try PinwatchBinary.runShell("\(SnapshotSchema.python) -c 'import jsonschema'")
        try TestEnvironment.require(
            probe.status == 0, "python3-jsonschema is not installed: apt-get install python3-jsonschema", skip: { XCTSkip($0) })
    }

    func testEverySnapshotAndInspectDocumentMatchesTheSchema() throws {
        try fleet.addOK("ok.test")
        try fleet.addLeafOnly("leafonly.test")
        try fleet.addBlockedNoMatch("blocked.test")
        try fleet.addUnpinned("unpinned.test")
        try fleet.addRefused("refused.test")
        try fleet.writeConfig()
        let state = fleet.directory.appendingPathComponent("state.sqlite").path
        for round in 1...2 {
            let snapshot = try fleet.run(["snapshot", "--format", "json", "--state", state])
            XCTAssertEqual(snapshot.status, 0, snapshot.stderr)
            let file = try fleet.write(snapshot.stdout, to: "snapshot-\(round).json")
            let verdict = try SnapshotSchema.validate(file.path)
            XCTAssertEqual(verdict.status, 0, "round \(round): \(verdict.stderr)")
        }
        let off = try fleet.run(["snapshot", "--format", "json", "--state", "off"])
        XCTAssertEqual(try SnapshotSchema.validate(try fleet.write(off.stdout, to: "off.json").path).status, 0, "history off: nulls")

        let (server, _) = try fleet.serveLeaf("inspected.test")
        let inspect = try fleet.run([
            "inspect", "inspected.test:\(server.port)", "--connect", "127.0.0.1", "--trust", fleet.trustURL.path, "--format", "json",
        ])
        XCTAssertEqual(inspect.status, 0, inspect.stderr)
        let verdict = try SnapshotSchema.validate(try fleet.write(inspect.stdout, to: "inspect.json").path, definition: "host")
        XCTAssertEqual(verdict.status, 0, verdict.stderr)
    }

    /// The check can fail: a document with a field the schema does not
    /// know, or a status it does not list, is refused.
    func testTheSchemaRefusesWhatItDoesNotDescribe() throws {
        try fleet.addOK("ok.test")
        try fleet.writeConfig()
        let snapshot = try fleet.run(["snapshot", "--format", "json", "--state", "off"])
        var document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(snapshot.stdout.utf8)) as? [String: Any])
        var hosts = try XCTUnwrap(document["hosts"] as? [[String: Any]])
        hosts[0]["status"] = "fine"
        document["hosts"] = hosts
        let wrongStatus = try fleet.write(
            String(decoding: try JSONSerialization.data(withJSONObject: document), as: UTF8.self), to: "bad.json")
        XCTAssertNotEqual(try SnapshotSchema.validate(wrongStatus.path).status, 0)
        hosts[0]["status"] = "ok"
        hosts[0]["surprise"] = true
        document["hosts"] = hosts
        let extraField = try fleet.write(
            String(decoding: try JSONSerialization.data(withJSONObject: document), as: UTF8.self), to: "extra.json")
        XCTAssertNotEqual(try SnapshotSchema.validate(extraField.path).status, 0)
    }
}
