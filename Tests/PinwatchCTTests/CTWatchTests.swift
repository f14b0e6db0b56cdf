import Foundation
import PinwatchCT
import PinwatchCore
import PinwatchHistory
import PinwatchLocalWorld
import PinwatchProbe
import XCTest

/// Two local logs followed for a configuration's hosts: what each logs for
/// a watched host is judged per release, newest first; a log that fails
/// verification is reported by name and none of its entries count.
final class CTWatchTests: XCTestCase {
    func testEachHostsNewCertificatesAreJudgedAndATamperedLogIsReportedNotActedOn() throws {
        let fixture = try LocalCTFixture()
        let sibling = try fixture.root.issueIntermediate(commonName: "CT Test Issuing CA 2")
        let other = try LocalCTLog(roots: [fixture.root.certificate])
        defer { other.stop() }
        let descriptions = try [fixture.log, other].flatMap { try CTLogList(json: try $0.logList(description: "log \($0.port)")).logs }
        var config = Config(hosts: [HostConfig(host: "api.example.test")])
        let pin = Pin(
            kind: .spki, digest: fixture.intermediate.certificate.facts.spkiSHA256,
            text: PinText.sha256(fixture.intermediate.certificate.facts.spkiSHA256))
        config.clients = [
            ClientPolicy(
                name: "android 5.2",
                pins: ImportedPins(
                    file: "nsc.xml", format: .nsc,
                    rules: [ClientPinRule(domain: "example.test", includeSubdomains: true, pins: [pin], origin: "nsc.xml:3")]))
        ]
        // History before the first cycle is never read.
        try fixture.logCertificate(["api.example.test"], under: sibling)
        try fixture.log.publish()
        try log(other, ["api.example.test"], under: fixture.intermediate, fixture)
        try other.publish()
        let watch = CTWatch(logs: descriptions, config: config, store: TrustStore(name: "test", anchors: [fixture.root.certificate.facts]))
        let first = watch.cycle(now: Date())
        XCTAssertEqual(first.logged, [:])
        XCTAssertEqual(first.logs.map(\.verifiedSize), [1, 1])

        try fixture.logCertificate(["api.example.test"], under: sibling)
        try fixture.logCertificate(["unwatched.test"], under: sibling)
        try fixture.logPrecertificate(["*.example.test"])
        try fixture.log.publish()
        try log(other, ["api.example.test"], under: sibling, fixture)
        try other.publish()
        other.tamper = .entriesNotInTree
        let second = watch.cycle(now: Date())

        let logged = try XCTUnwrap(second.logged["api.example.test"])
        XCTAssertEqual(logged.map(\.index), [3, 1], "newest first; the unwatched name and the tampered log's entry are not there")
        XCTAssertEqual(logged.map(\.log), ["log \(fixture.log.port)", "log \(fixture.log.port)"])
        XCTAssertEqual(logged.map(\.precertificate), [true, false])
        XCTAssertEqual(logged.map(\.verdict.survives), [["android 5.2"], []])
        XCTAssertEqual(logged.map(\.verdict.breaks), [[], ["android 5.2"]])
        XCTAssertEqual(logged[1].issuerSPKISHA256, sibling.certificate.facts.spkiSHA256)
        XCTAssertEqual(logged[0].issuerSPKISHA256, fixture.intermediate.certificate.facts.spkiSHA256)
        XCTAssertFalse(logged[0].serial.isEmpty)
        XCTAssertTrue(logged[1].issuer.contains("CT Test Issuing CA 2"), logged[1].issuer)

        XCTAssertNil(second.logs[0].error)
        XCTAssertEqual(second.logs[0].verifiedSize, 4)
        XCTAssertEqual(second.logs[1].error, .entriesNotInTree(from: 1, to: 2))
        XCTAssertTrue(second.logs[1].isMisbehaving)
        XCTAssertEqual(second.logs[1].log.description, "log \(other.port)")
        XCTAssertEqual(second.logs[1].verifiedSize, 1, "the tampered log stays at its last verified tree")
        XCTAssertEqual(watch.positions.count, 2)
    }

    /// A log that answers 429 or 5xx is left alone for a while that
    /// doubles with each such answer, and asked again once it has passed;
    /// an answer resets it.
    func testALogSheddingLoadIsBackedOffExponentially() throws {
        let fixture = try LocalCTFixture()
        try fixture.logCertificate(["api.example.test"])
        try fixture.log.publish()
        let descriptions = try CTLogList(json: try fixture.log.logList()).logs
        var backoff = CTWatch.Backoff()
        backoff.first = 60
        backoff.maximum = 200
        let watch = CTWatch(
            logs: descriptions, config: Config(hosts: [HostConfig(host: "api.example.test")]),
            store: TrustStore(name: "test", anchors: []), backoff: backoff)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        fixture.log.tamper = .status(503)

        let asked = { fixture.log.acceptedConnections }
        let first = watch.cycle(now: start)
        XCTAssertEqual(first.logs[0].error, .httpStatus(503, what: "127.0.0.1 ct/v1/get-sth"))
        XCTAssertFalse(first.logs[0].isMisbehaving)
        XCTAssertEqual(first.logs[0].backingOffUntil, start.addingTimeInterval(60))
        let afterFirst = asked()
        let waiting = watch.cycle(now: start.addingTimeInterval(59))
        XCTAssertNil(waiting.logs[0].error)
        XCTAssertEqual(waiting.logs[0].backingOffUntil, start.addingTimeInterval(60))
        XCTAssertEqual(asked(), afterFirst, "not asked while backing off")

        fixture.log.tamper = .status(429)
        let second = watch.cycle(now: start.addingTimeInterval(60))
        XCTAssertEqual(asked(), afterFirst + 1)
        XCTAssertEqual(second.logs[0].backingOffUntil, start.addingTimeInterval(60 + 120))
        let third = watch.cycle(now: start.addingTimeInterval(180))
        XCTAssertEqual(third.logs[0].backingOffUntil, start.addingTimeInterval(180 + 200), "capped at the maximum")

        fixture.log.tamper = .none
        let answered = watch.cycle(now: start.addingTimeInterval(380))
        XCTAssertNil(answered.logs[0].error)
        XCTAssertNil(answered.logs[0].backingOffUntil)
        fixture.log.tamper = .status(500)
        XCTAssertEqual(
            watch.cycle(now: start.addingTimeInterval(381)).logs[0].backingOffUntil, start.addingTimeInterval(381 + 60),
            "an answer in between starts the backoff again")
    }

    /// Positions stored in the history store after a run: the next run's
    /// watch resumes there, reading neither the log's history nor what the
    /// last run already judged.
    func testTheNextRunResumesFromThePositionsInTheHistoryStore() throws {
        let folder = NSTemporaryDirectory() + "pinwatch-ct-watch-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/state.sqlite"
        _ = try HistoryStore(path: path, mode: .writer)
        let fixture = try LocalCTFixture()
        for index in 0..<3 { try fixture.logCertificate(["h\(index).api.example.test"]) }
        try fixture.log.publish()
        let descriptions = try CTLogList(json: try fixture.log.logList()).logs
        let config = Config(hosts: [HostConfig(host: "api.example.test")])
        let store = TrustStore(name: "test", anchors: [fixture.root.certificate.facts])

        let first = CTWatch(logs: descriptions, config: config, store: store)
        _ = first.cycle(now: Date())
        try fixture.logCertificate(["api.example.test"])
        try fixture.log.publish()
        XCTAssertEqual(first.cycle(now: Date()).logged["api.example.test"]?.map(\.index), [3])
        try CTLogPositionTable.store(first.positions.map { $0.value.record(logID: $0.key) }, path: path)

        try fixture.logCertificate(["api.example.test"])
        try fixture.log.publish()
        var positions: [[UInt8]: VerifiedLogPosition] = [:]
        for record in try CTLogPositionTable.read(path: path) { positions[record.logID] = VerifiedLogPosition(record) }
        XCTAssertEqual(positions.values.first?.treeSize, 4)
        XCTAssertEqual(positions.values.first?.range?.size, 4, "the compact range is stored too")
        let next = CTWatch(logs: descriptions, config: config, store: store, positions: positions)
        XCTAssertEqual(next.cycle(now: Date()).logged["api.example.test"]?.map(\.index), [4])
    }

    func testAWildcardCoversOneLabelOnly() {
        XCTAssertTrue(CTWatch.covers(["*.example.test"], "api.example.test"))
        XCTAssertTrue(CTWatch.covers(["API.example.test"], "api.example.test"))
        XCTAssertFalse(CTWatch.covers(["*.example.test"], "a.b.example.test"))
        XCTAssertFalse(CTWatch.covers(["*.example.test"], "example.test"))
    }

    private func log(_ log: LocalCTLog, _ names: [String], under issuer: CertificateAuthority, _ fixture: LocalCTFixture) throws {
        let leaf = try issuer.issueLeaf(commonName: names[0], dnsNames: names)
        log.add(certificate: leaf.certificate, chain: [issuer.certificate, fixture.root.certificate])
    }
}
