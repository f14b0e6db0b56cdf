import Foundation
import PinwatchCT
import PinwatchLocalWorld
import PinwatchProbe
import XCTest

/// Following the local RFC 6962 log: entries come out only from trees whose
/// signature and consistency were checked and whose entries hash to the root.
final class CTLogFollowerTests: XCTestCase {
    func testFollowsTheLogFromEmptyThroughTwoTreesWithEveryEntryOnce() throws {
        let fixture = try LocalCTFixture(maximumBatch: 3)
        let first = [
            try fixture.logCertificate(["api.example.test"]),
            try fixture.logPrecertificate(["api.example.test", "www.example.test"]),
            try fixture.logCertificate(["other.example.test"]),
            try fixture.logCertificate(["cdn.example.test"]),
            try fixture.logPrecertificate(["api.example.test"]),
        ]
        try fixture.log.publish()
        // A batch size under the log's own cut and an odd tree size: the
        // follower asks again where the log stopped.
        let follower = try fixture.follower(batchSize: 2)

        let one = try follower.advance()
        XCTAssertEqual(one.position.treeSize, 5)
        XCTAssertEqual(one.entries.map(\.index), [0, 1, 2, 3, 4])
        XCTAssertEqual(one.entries.map(\.certificateDER), first)
        XCTAssertEqual(one.entries.map(\.isPrecertificate), [false, true, false, false, true])
        XCTAssertEqual(one.unreadable, [])
        XCTAssertEqual(one.entries[0].chain, [fixture.intermediate.certificate.der, fixture.root.certificate.der])
        if case .precertificate(let issuerKeyHash, let tbs, _) = one.entries[1].kind {
            XCTAssertEqual(issuerKeyHash, fixture.intermediate.certificate.facts.spkiSHA256)
            XCTAssertEqual(tbs, PrecertificateTBS.withoutPoison(first[1]))
        } else {
            XCTFail("entry 1 is not a precertificate")
        }

        // No new tree: nothing new, the same position.
        let again = try follower.advance()
        XCTAssertEqual(again.entries.count, 0)
        XCTAssertEqual(again.position.treeSize, 5)

        var second: [[UInt8]] = []
        for index in 0..<8 { second.append(try fixture.logCertificate(["host\(index).example.test"])) }
        try fixture.log.publish()
        let two = try follower.advance()
        XCTAssertEqual(two.position.treeSize, 13)
        XCTAssertEqual(two.entries.map(\.index), Array(5..<13))
        XCTAssertEqual(two.entries.map(\.certificateDER), second)
    }

    /// A follower that starts at the log's size of the day reads none of
    /// its history: the first consistency proof hands it the old tree's
    /// range, and only the newer entries come out.
    func testStartsWhereTheLogIsWithoutItsHistory() throws {
        let fixture = try LocalCTFixture()
        for index in 0..<11 { try fixture.logCertificate(["old\(index).example.test"]) }
        try fixture.log.publish()
        let follower = try fixture.follower(from: nil)
        let start = try follower.advance()
        XCTAssertEqual(start.position.treeSize, 11)
        XCTAssertNil(start.position.range)
        XCTAssertEqual(start.entries.count, 0)

        let new = [try fixture.logCertificate(["new.example.test"]), try fixture.logPrecertificate(["new.example.test"])]
        try fixture.log.publish()
        let next = try follower.advance()
        XCTAssertEqual(next.entries.map(\.index), [11, 12])
        XCTAssertEqual(next.entries.map(\.certificateDER), new)
        XCTAssertEqual(next.position.range?.size, 13)
    }

    /// A precertificate entry whose submitted precertificate is not the one
    /// the tree holds is counted as unreadable when kept, never handed over;
    /// the rest of the tree is.
    func testAPrecertificateThatIsNotTheOneLoggedIsUnreadable() throws {
        let fixture = try LocalCTFixture()
        let logged = try fixture.intermediate.issueLeaf(
            commonName: "api.example.test", dnsNames: ["api.example.test"], precertificate: true)
        let other = try fixture.intermediate.issueLeaf(commonName: "api.example.test", dnsNames: ["api.example.test"], precertificate: true)
        let chain = [fixture.intermediate.certificate, fixture.root.certificate]
        try fixture.logCertificate(["api.example.test"])
        try fixture.log.add(
            precertificate: logged.certificate, issuer: fixture.intermediate.certificate, chain: chain, submitted: other.certificate)
        try fixture.logPrecertificate(["api.example.test"])
        try fixture.log.publish()
        let advance = try fixture.follower().advance(keeping: CTWatchedNames(["api.example.test"]).matches)
        XCTAssertEqual(advance.entries.map(\.index), [0, 2])
        XCTAssertEqual(advance.unreadable, [1])
        XCTAssertEqual(advance.position.treeSize, 3)
    }

    func testKeepsOnlyTheWatchedNamesEntries() throws {
        let fixture = try LocalCTFixture()
        try fixture.logCertificate(["api.example.test"])
        try fixture.logCertificate(["unrelated.test"])
        try fixture.logPrecertificate(["deep.api.example.test"])
        try fixture.logCertificate(["notexample.test"])
        try fixture.log.publish()
        let watched = CTWatchedNames(["*.example.test"])
        let advance = try fixture.follower().advance(keeping: watched.matches)
        XCTAssertEqual(advance.entries.map(\.index), [0, 2])
        XCTAssertEqual(advance.position.treeSize, 4)
    }

    func testABadSignatureYieldsNoEntriesAndKeepsThePosition() throws {
        let fixture = try LocalCTFixture()
        try fixture.logCertificate(["a.example.test"])
        try fixture.log.publish()
        let follower = try fixture.follower()
        XCTAssertEqual(try follower.advance().entries.count, 1)
        try fixture.logCertificate(["b.example.test"])
        try fixture.log.publish()
        fixture.log.tamper = .badSignature
        XCTAssertThrowsError(try follower.advance()) { error in
            XCTAssertEqual(error as? CTLogError, .badSignature(treeSize: 2))
            XCTAssertEqual((error as? CTLogError)?.isMisbehaviour, true)
        }
        XCTAssertEqual(follower.position?.treeSize, 1)
        fixture.log.tamper = .none
        XCTAssertEqual(try follower.advance().entries.map(\.index), [1])
    }

    func testARewrittenHistoryIsInconsistent() throws {
        let fixture = try LocalCTFixture()
        for index in 0..<3 { try fixture.logCertificate(["h\(index).example.test"]) }
        try fixture.log.publish()
        let follower = try fixture.follower()
        XCTAssertEqual(try follower.advance().entries.count, 3)
        try fixture.logCertificate(["h3.example.test"])
        try fixture.log.rewriteHistory(at: 1)
        XCTAssertThrowsError(try follower.advance()) { error in
            guard case .inconsistent = error as? CTLogError else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(follower.position?.treeSize, 3)
        // Same size, another root: as inconsistent as a shorter or a forked tree.
        let sameSize = try fixture.follower()
        _ = try sameSize.advance()
        try fixture.log.rewriteHistory(at: 0)
        XCTAssertThrowsError(try sameSize.advance()) { error in
            guard case .inconsistent = error as? CTLogError else { return XCTFail("\(error)") }
        }
    }

    func testEntriesThatDoNotHashToTheTreeAreRefused() throws {
        let fixture = try LocalCTFixture()
        try fixture.logCertificate(["a.example.test"])
        try fixture.log.publish()
        let follower = try fixture.follower()
        _ = try follower.advance()
        try fixture.logCertificate(["b.example.test"])
        try fixture.logCertificate(["c.example.test"])
        try fixture.log.publish()
        fixture.log.tamper = .entriesNotInTree
        // A step either hands over entries or throws: the throw is the
        // proof that none of the tampered entries came out.
        XCTAssertThrowsError(try follower.advance()) { error in
            XCTAssertEqual(error as? CTLogError, .entriesNotInTree(from: 1, to: 3))
            XCTAssertEqual((error as? CTLogError)?.isMisbehaviour, true)
        }
        XCTAssertEqual(follower.position?.treeSize, 1)
        // The same tree served honestly: its entries come out, once.
        fixture.log.tamper = .none
        XCTAssertEqual(try follower.advance().entries.map(\.index), [1, 2])
    }

    /// A tree larger than a step's budget is read over several steps
    /// towards the same verified head; its entries come out once, when the
    /// last one is read and they build the root, though the log grew
    /// meanwhile.
    func testABudgetReadsALargeTreeOverSeveralStepsAndHandsItOverWhole() throws {
        let fixture = try LocalCTFixture(maximumBatch: 3)
        for index in 0..<10 { try fixture.logCertificate(["c\(index).example.test"]) }
        try fixture.log.publish()
        let follower = try fixture.follower(batchSize: 2)

        let first = try follower.advance(budget: 4)
        XCTAssertEqual(first.entries.count, 0)
        XCTAssertEqual(first.catchingUp?.read, 4)
        XCTAssertEqual(first.catchingUp?.of, 10)
        XCTAssertEqual(follower.position?.treeSize, 0)
        try fixture.logCertificate(["late.example.test"])
        try fixture.log.publish()
        XCTAssertEqual(try follower.advance(budget: 4).catchingUp?.read, 8)
        let third = try follower.advance(budget: 4)
        XCTAssertNil(third.catchingUp)
        XCTAssertEqual(third.entries.map(\.index), Array(0..<10))
        XCTAssertEqual(third.position.treeSize, 10)
        XCTAssertEqual(try follower.advance(budget: 4).entries.map(\.index), [10])
    }

    /// Entries that do not build the root are found at the end of a
    /// catch-up: no step before hands any over, and the next step starts
    /// again from the verified tree.
    func testATamperedCatchUpHandsNothingOverAndStartsAgain() throws {
        let fixture = try LocalCTFixture()
        for index in 0..<6 { try fixture.logCertificate(["t\(index).example.test"]) }
        try fixture.log.publish()
        fixture.log.tamper = .entriesNotInTree
        let follower = try fixture.follower()
        let first = try follower.advance(budget: 4)
        XCTAssertEqual(first.entries.count, 0)
        XCTAssertEqual(first.catchingUp?.read, 4)
        XCTAssertThrowsError(try follower.advance(budget: 4)) { error in
            XCTAssertEqual(error as? CTLogError, .entriesNotInTree(from: 0, to: 6))
        }
        XCTAssertEqual(follower.position?.treeSize, 0)
        fixture.log.tamper = .none
        XCTAssertEqual(try follower.advance(budget: 4).catchingUp?.read, 4, "read again from the verified tree")
        XCTAssertEqual(try follower.advance(budget: 4).entries.map(\.index), Array(0..<6))
    }

    /// A step that fails on the road (a stall) resumes where it stopped.
    func testAStallMidwayResumesWhereTheCatchUpStopped() throws {
        let fixture = try LocalCTFixture()
        for index in 0..<6 { try fixture.logCertificate(["s\(index).example.test"]) }
        try fixture.log.publish()
        let follower = try fixture.follower(timeout: 1)
        XCTAssertEqual(try follower.advance(budget: 4).catchingUp?.read, 4)
        fixture.log.tamper = .stall
        XCTAssertThrowsError(try follower.advance(budget: 4)) { error in
            guard case .timedOut = error as? CTLogError else { return XCTFail("\(error)") }
        }
        fixture.log.tamper = .none
        XCTAssertEqual(try follower.advance(budget: 1).catchingUp?.read, 5)
        XCTAssertEqual(try follower.advance().entries.map(\.index), Array(0..<6))
    }

    /// A 100 MB answer to get-entries stops at the client's bound, and the
    /// process's peak resident memory grows by far less than the answer.
    func testAHundredMegabyteAnswerStopsAtTheBound() throws {
        let fixture = try LocalCTFixture()
        try fixture.logCertificate(["a.example.test"])
        try fixture.log.publish()
        fixture.log.tamper = .hugeEntries(bytes: 100_000_000)
        let follower = try fixture.follower()
        let before = try PeakResidentMemory.resetAndRead()
        XCTAssertThrowsError(try follower.advance()) { error in
            guard case .tooLarge(_, let limit) = error as? CTLogError else { return XCTFail("\(error)") }
            XCTAssertEqual(limit, RFC6962Client.Limits().entriesAnswer)
            XCTAssertEqual((error as? CTLogError)?.isMisbehaviour, true)
        }
        let peakGrowth = try PeakResidentMemory.read() - before
        XCTAssertLessThan(peakGrowth, 64 << 20, "peak resident memory grew by \(peakGrowth >> 20) MiB")
        XCTAssertEqual(follower.position?.treeSize, 0)
    }

    func testALogThatStallsTimesOut() throws {
        let fixture = try LocalCTFixture()
        try fixture.log.publish()
        fixture.log.tamper = .stall
        let follower = try fixture.follower(timeout: 1)
        let started = Date()
        XCTAssertThrowsError(try follower.advance()) { error in
            guard case .timedOut = error as? CTLogError else { return XCTFail("\(error)") }
            XCTAssertEqual((error as? CTLogError)?.isMisbehaviour, false)
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
    }
}

/// The process's peak resident set (VmHWM), which writing 5 to
/// /proc/self/clear_refs resets to the current resident set.
enum PeakResidentMemory {
    static func resetAndRead() throws -> Int {
        try "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
        return try read()
    }

    static func read() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { throw CTFormatError("no VmHWM in /proc/self/status") }
        return kilobytes << 10
    }
}
