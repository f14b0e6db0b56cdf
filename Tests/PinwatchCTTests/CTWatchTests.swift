import Foundation
import PinwatchCT
import PinwatchCore
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
