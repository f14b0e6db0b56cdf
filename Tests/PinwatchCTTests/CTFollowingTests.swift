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

    /// A certificate a CA submitted to several logs, and its precertificate
    /// before it, is one entry: the latest logging of it.
    func testOneCertificateLoggedManyTimesIsOneEntry() {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        func logged(_ serial: String, issuer: UInt8, log: String, at seconds: TimeInterval) -> CTLoggedCertificate {
            CTLoggedCertificate(
                loggedAt: start.addingTimeInterval(seconds), log: log, index: UInt64(seconds), precertificate: log == "A",
                serial: serial, notBefore: start, notAfter: start.addingTimeInterval(86_400), issuer: "CN=I\(issuer)",
                issuerSPKISHA256: [UInt8](repeating: issuer, count: 32), leafSPKISHA256: [UInt8](repeating: 9, count: 32),
                verdict: CTLoggedVerdict())
        }
        let kept = CTFollowing.recent([
            logged("0A", issuer: 1, log: "A", at: 1), logged("0A", issuer: 1, log: "B", at: 3), logged("0A", issuer: 2, log: "B", at: 2),
            logged("0B", issuer: 1, log: "C", at: 4),
        ])
        XCTAssertEqual(kept.map(\.log), ["C", "B", "B"])
        XCTAssertEqual(kept.map(\.serial), ["0B", "0A", "0A"])
        XCTAssertEqual(kept.map(\.index), [4, 3, 2])
        let many = (0..<50).map { logged("\($0)", issuer: 1, log: "A", at: Double($0)) }
        XCTAssertEqual(CTFollowing.recent(many).map(\.serial), (30..<50).reversed().map { "\($0)" })
    }
}
