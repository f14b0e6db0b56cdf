import Foundation
import PinwatchCT
import PinwatchCore
import PinwatchLocalWorld
import PinwatchProbe
import XCTest

/// Following the local log through static-ct-api: the checkpoint, hash
/// tiles (full and partial) for consistency, data tiles (gzipped) for the
/// entries and issuers by fingerprint. The oracle is the same log read
/// over RFC 6962: both views hand over the same entries.
final class StaticCTFollowerTests: XCTestCase {
    /// `names` of entry `index`: one in 7 for the watched host, one in 11 a
    /// precertificate, the rest other names.
    private func logEntries(_ range: Range<Int>, into fixture: LocalCTFixture, issued: inout [String: X509Certificate]) throws {
        for index in range {
            let name = index % 7 == 0 ? "api.example.test" : "host\(index % 5).other.test"
            if index % 11 == 0 {
                try fixture.logPrecertificate([name])
                continue
            }
            // Certificates are few and reused: issuing is what costs.
            let certificate: X509Certificate
            if let known = issued[name] {
                certificate = known
            } else {
                certificate = try fixture.intermediate.issueLeaf(commonName: name, dnsNames: [name]).certificate
                issued[name] = certificate
            }
            fixture.log.add(certificate: certificate, chain: [fixture.intermediate.certificate, fixture.root.certificate])
        }
    }

    func testTheTiledAndRFC6962ViewsOfOneLogHandOverTheSameEntries() throws {
        let fixture = try LocalCTFixture()
        let watched = CTWatchedNames(["api.example.test"])
        var issued: [String: X509Certificate] = [:]
        let rfc6962 = try fixture.follower()
        let tiled = try fixture.tiledFollower()
        // A follower that starts at the log's size of the day: its first
        // step from there needs a consistency proof built from hash tiles.
        var started: CTLogFollower?
        // 0 → 5 → 300 → 70 000 would cost minutes of hashing; 5, 300 and
        // 600 cross a full level-0 tile, partial ones and a partial level 1.
        for size in [5, 300, 600] {
            try logEntries(fixture.log.entryCount..<size, into: fixture, issued: &issued)
            try fixture.log.publish()
            let expected = try rfc6962.advance(keeping: { watched.matches($0) })
            let got = try tiled.advance(keeping: { watched.matches($0) })
            XCTAssertEqual(got.position, expected.position, "size \(size)")
            XCTAssertEqual(got.entries, expected.entries, "size \(size)")
            XCTAssertFalse(got.entries.isEmpty, "size \(size)")
            XCTAssertEqual(got.unreadable, [])
            if let started {
                let next = try started.advance(keeping: { watched.matches($0) })
                XCTAssertEqual(next.position.treeSize, UInt64(size))
                XCTAssertEqual(next.position.range, expected.position.range)
                XCTAssertEqual(next.entries, expected.entries.filter { $0.index >= 5 }, "size \(size)")
            } else {
                started = try fixture.tiledFollower(from: nil)
                XCTAssertEqual(try started?.advance().position.treeSize, UInt64(size))
            }
        }
        XCTAssertTrue(
            try tiled.advance().entries.isEmpty, "the same checkpoint again: nothing new")
        XCTAssertGreaterThan(fixture.log.gzippedAnswerCount, 0, "data tiles came gzipped and were read")
        XCTAssertEqual(tiled.position?.treeSize, 600)
    }

    /// `CTWatch` follows a list's `tiled_logs` as it follows its `logs`,
    /// and resumes from the positions it kept.
    func testCTWatchFollowsATiledLogOfTheList() throws {
        let fixture = try LocalCTFixture()
        try fixture.logCertificate(["api.example.test"])
        try fixture.log.publish()
        let logs = try CTLogList(json: try fixture.log.logList(description: "tiled", tiled: true)).logs
        let config = Config(hosts: [HostConfig(host: "api.example.test")])
        let watch = CTWatch(logs: logs, config: config, store: TrustStore(name: "test", anchors: [fixture.root.certificate.facts]))
        let first = watch.cycle(now: Date())
        XCTAssertEqual(first.logs.map(\.verifiedSize), [1])
        XCTAssertEqual(first.logged, [:])
        try fixture.logPrecertificate(["api.example.test"])
        try fixture.logCertificate(["other.test"])
        try fixture.log.publish()
        let second = watch.cycle(now: Date())
        XCTAssertNil(second.logs[0].error)
        XCTAssertEqual(second.logs[0].verifiedSize, 3)
        let logged = try XCTUnwrap(second.logged["api.example.test"])
        XCTAssertEqual(logged.map(\.index), [1])
        XCTAssertEqual(logged.map(\.log), ["tiled"])
        XCTAssertEqual(logged[0].issuerSPKISHA256, fixture.intermediate.certificate.facts.spkiSHA256)

        // The positions it keeps let the next run resume: neither the
        // history nor what was judged comes again.
        let positions = watch.positions
        XCTAssertEqual(positions[fixture.log.logID]?.treeSize, 3)
        XCTAssertNotNil(positions[fixture.log.logID]?.range)
        try fixture.logCertificate(["api.example.test"])
        try fixture.log.publish()
        let resumed = CTWatch(
            logs: logs, config: config, store: TrustStore(name: "test", anchors: [fixture.root.certificate.facts]),
            positions: positions)
        XCTAssertEqual(resumed.cycle(now: Date()).logged["api.example.test"]?.map(\.index), [3])
    }

    /// The issuers of a kept entry come from `issuer/<fingerprint>`; an
    /// entry not kept costs no issuer.
    func testIssuersAreReadByFingerprintForKeptEntries() throws {
        let fixture = try LocalCTFixture()
        try fixture.logPrecertificate(["api.example.test"])
        try fixture.logCertificate(["other.test"])
        try fixture.log.publish()
        let follower = try fixture.tiledFollower()
        let advance = try follower.advance(keeping: { CTWatchedNames(["api.example.test"]).matches($0) })
        XCTAssertEqual(advance.entries.map(\.index), [0])
        XCTAssertEqual(advance.entries[0].chain, [fixture.intermediate.certificate.der, fixture.root.certificate.der])
        XCTAssertTrue(advance.entries[0].isPrecertificate)
    }

    /// Each lie is refused as misbehaviour: nothing handed over, the
    /// position kept; once the log is honest again, its entries come once.
    func testTamperedTilesCheckpointsAndIssuersAreRefused() throws {
        let cases: [(LocalCTLog.Tamper, (CTLogError) -> Bool)] = [
            (.badSignature, { if case .badSignature = $0 { true } else { false } }),
            (.missingCheckpoint, { $0 == .malformed("checkpoint: the log serves none (HTTP 404)") }),
            (.tileNotInTree, { if case .inconsistent = $0 { true } else { false } }),
            (.entriesNotInTree, { $0 == .entriesNotInTree(from: 3, to: 6) }),
            (
                .issuerNotItsFingerprint,
                { if case .malformed(let why) = $0 { why.contains("does not hash to its fingerprint") } else { false } }
            ),
        ]
        for (tamper, expected) in cases {
            let fixture = try LocalCTFixture()
            for _ in 0..<3 { try fixture.logCertificate(["api.example.test"]) }
            try fixture.log.publish()
            let follower = try fixture.tiledFollower()
            // Nothing kept: no issuer read (and cached) before the lie.
            XCTAssertEqual(try follower.advance(keeping: { _ in false }).position.treeSize, 3)
            for _ in 0..<3 { try fixture.logCertificate(["api.example.test"]) }
            try fixture.log.publish()
            fixture.log.tamper = tamper
            do {
                let advance = try follower.advance()
                XCTFail("\(tamper): handed over \(advance.entries.count) entries")
            } catch {
                XCTAssertTrue(expected(error), "\(tamper): \(error)")
                XCTAssertTrue(error.isMisbehaviour, "\(tamper): \(error)")
            }
            XCTAssertEqual(follower.position?.treeSize, 3, "\(tamper)")
            fixture.log.tamper = .none
            XCTAssertEqual(try follower.advance().entries.map(\.index), [3, 4, 5], "\(tamper)")
        }
    }

    /// A data tile that never ends stops at the bound, as misbehaviour; a
    /// log that stalls times out, which is not.
    func testAnEndlessTileIsCutAtTheBoundAndAStallTimesOut() throws {
        let fixture = try LocalCTFixture()
        try fixture.logCertificate(["api.example.test"])
        try fixture.log.publish()
        fixture.log.tamper = .hugeEntries(bytes: 100 << 20)
        XCTAssertThrowsError(try fixture.tiledFollower().advance()) { error in
            guard case .tooLarge(_, let limit) = error as? CTLogError else { return XCTFail("\(error)") }
            XCTAssertEqual(limit, RFC6962Client.Limits().entriesAnswer)
            XCTAssertTrue((error as? CTLogError)?.isMisbehaviour ?? false)
        }
        fixture.log.tamper = .stall
        let started = Date()
        XCTAssertThrowsError(try fixture.tiledFollower(from: nil, timeout: 1).advance()) { error in
            guard case .timedOut = error as? CTLogError else { return XCTFail("\(error)") }
            XCTAssertFalse((error as? CTLogError)?.isMisbehaviour ?? true)
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
    }

    /// A rewritten history: the new tree's hash tiles do not prove it
    /// extends the verified one.
    func testARewrittenHistoryIsInconsistent() throws {
        let fixture = try LocalCTFixture()
        for index in 0..<4 { try fixture.logCertificate(["h\(index).example.test"]) }
        try fixture.log.publish()
        let follower = try fixture.tiledFollower()
        _ = try follower.advance()
        try fixture.logCertificate(["new.example.test"])
        try fixture.log.rewriteHistory(at: 1)
        XCTAssertThrowsError(try follower.advance()) { error in
            guard case .inconsistent = error as? CTLogError else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(follower.position?.treeSize, 4)
    }

    /// A budget below a tile's width reads a tree over several steps and
    /// hands it over whole; tiles that are not gzipped are read as well.
    func testABudgetReadsATiledTreeOverSeveralSteps() throws {
        let fixture = try LocalCTFixture()
        fixture.log.gzipsTiles = false
        var issued: [String: X509Certificate] = [:]
        try logEntries(0..<10, into: fixture, issued: &issued)
        try fixture.log.publish()
        let follower = try fixture.tiledFollower()
        _ = try follower.advance()
        try logEntries(10..<300, into: fixture, issued: &issued)
        try fixture.log.publish()
        var steps = 0
        var handed: [CTLogEntry] = []
        while follower.position?.treeSize != 300, steps < 10 {
            let advance = try follower.advance(keeping: { CTWatchedNames(["api.example.test"]).matches($0) }, budget: 100)
            handed += advance.entries
            if follower.position?.treeSize != 300 { XCTAssertEqual(advance.entries, []) }
            steps += 1
        }
        XCTAssertEqual(steps, 3)
        XCTAssertEqual(handed.map(\.index), (10..<300).filter { $0 % 7 == 0 }.map(UInt64.init))
        XCTAssertEqual(fixture.log.gzippedAnswerCount, 0)
    }

    /// A log may delete a partial tile once its full tile exists: a reader
    /// of an older checkpoint reads the full tile's first hashes and
    /// entries instead.
    func testAPartialTileReplacedByItsFullTileIsReadFromTheFullTile() throws {
        let fixture = try LocalCTFixture()
        var issued: [String: X509Certificate] = [:]
        try logEntries(0..<5, into: fixture, issued: &issued)
        try fixture.log.publish()
        let follower = try fixture.tiledFollower()
        XCTAssertEqual(try follower.advance().position.treeSize, 5)
        try logEntries(5..<600, into: fixture, issued: &issued)
        try fixture.log.publish(size: 300)
        fixture.log.tilesAhead = true
        let expected = try fixture.follower().advance(keeping: { CTWatchedNames(["api.example.test"]).matches($0) })
        let advance = try follower.advance(keeping: { CTWatchedNames(["api.example.test"]).matches($0) })
        XCTAssertEqual(advance.position, expected.position)
        XCTAssertEqual(advance.position.treeSize, 300)
        XCTAssertEqual(advance.entries, expected.entries.filter { $0.index >= 5 })
    }

    func testTileIndexesAreWrittenInThreeDigitElements() {
        XCTAssertEqual(StaticCTClient.indexPath(0), "000")
        XCTAssertEqual(StaticCTClient.indexPath(7), "007")
        XCTAssertEqual(StaticCTClient.indexPath(1_234_067), "x001/x234/067")
        XCTAssertEqual(StaticCTClient.indexPath(1_000), "x001/000")
    }
}
