import Foundation
import PinwatchCT
import PinwatchCore
import PinwatchHistory
import PinwatchLocalWorld
import PinwatchMonitor
import PinwatchProbe
import XCTest

/// `ct:` as a command follows it: bounded steps that catch a large gap up
/// over several, what they found and where they stopped kept in a real
/// history store, and a later follower resuming from it with what was
/// found before.
final class CTFollowingTests: XCTestCase {
    private var folder = ""

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "pinwatch-ct-following-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: folder)
    }

    func testABudgetCatchesUpOverStepsAndAStoreKeepsWhatWasFound() throws {
        let fixture = try LocalCTFixture()
        let sibling = try fixture.root.issueIntermediate(commonName: "CT Test Issuing CA 2")
        try fixture.logCertificate(["before.example.test"])
        try fixture.log.publish()
        var config = Config(hosts: [HostConfig(host: "api.example.test")])
        let pin = Pin(
            kind: .spki, digest: fixture.intermediate.certificate.facts.spkiSHA256,
            text: PinText.sha256(fixture.intermediate.certificate.facts.spkiSHA256))
        config.clients = [
            ClientPolicy(
                name: "android 5.2",
                pins: ImportedPins(
                    file: "nsc.xml", format: .nsc,
                    rules: [ClientPinRule(domain: "api.example.test", includeSubdomains: false, pins: [pin], origin: "nsc.xml:3")]))
        ]
        let path = folder + "/state.sqlite"
        let store = try HistoryStore(path: path, mode: .writer)
        let logs = [try fixture.description()]
        let following = CTFollowing(logs: logs, config: config, saved: try XCTUnwrap(store.ctState), budget: 2)
        following.stepAndWait()
        XCTAssertEqual(following.logStates.map(\.verifiedSize), [1])

        try fixture.logCertificate(["api.example.test"], under: sibling)
        for index in 0..<3 { try fixture.logCertificate(["other\(index).example.test"]) }
        try fixture.log.publish()
        following.stepAndWait()
        let catching = try XCTUnwrap(following.logStates.first)
        XCTAssertEqual(catching.verifiedSize, 1, "nothing is handed over before the whole gap is read")
        XCTAssertEqual(catching.catchingUp?.read, 2)
        XCTAssertEqual(catching.catchingUp?.of, 4)
        XCTAssertEqual(following.facts(for: "api.example.test").logged, [])
        following.stepAndWait()
        XCTAssertEqual(following.logStates.first?.verifiedSize, 5)
        XCTAssertNil(following.logStates.first?.catchingUp)
        let found = following.facts(for: "API.example.test").logged
        XCTAssertEqual(found.map(\.verdict.breaks), [["android 5.2"]])
        XCTAssertEqual(found.first?.chainDER.count, 3, "the certificate and the two issuers logged with it")

        // A later run resumes from the store with what was found before.
        let later = CTFollowing(logs: logs, config: config, saved: try XCTUnwrap(store.ctState), budget: 2)
        XCTAssertEqual(later.facts(for: "api.example.test").logged.map(\.index), found.map(\.index))
        try fixture.logCertificate(["api.example.test"])
        try fixture.log.publish()
        later.stepAndWait()
        XCTAssertEqual(later.logStates.first?.verifiedSize, 6, "resumed at 5, not at the log's size of the day")
        XCTAssertEqual(later.facts(for: "api.example.test").logged.map(\.verdict.survives), [["android 5.2"], []])
    }
}
