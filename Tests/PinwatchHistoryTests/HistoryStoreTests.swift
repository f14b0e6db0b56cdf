import Foundation
import PinwatchCore
import XCTest

@testable import PinwatchHistory

/// The store on real SQLite files: round trips, restarts, and every way a
/// state file can be wrong. No timings.
final class HistoryStoreTests: XCTestCase {
    private var folder = ""
    private var path: String { folder + "/state.sqlite" }
    private let start = Date(timeIntervalSince1970: 1_800_000_000)
    private let day: TimeInterval = 86_400

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "pinwatch-history-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: folder)
    }

    // MARK: Fixtures

    private func certificate(_ subject: String, key: UInt8, cert: UInt8, issuer: String, days: Double = 90) -> ChainCertificate {
        ChainCertificate(
            facts: CertificateFacts(
                subject: subject, issuer: issuer, notBefore: start, notAfter: start.addingTimeInterval(days * day),
                keyDescription: "ECDSA P-256", spkiSHA256: [UInt8](repeating: key, count: 32),
                keySHA256: [UInt8](repeating: key, count: 32),
                certSHA256: [UInt8](repeating: cert, count: 32)),
            fromServer: true)
    }

    /// api.test with leaf `leaf` under intermediate `intermediate`; the CA
    /// pin is key 3 (the root) unless `caPin` says otherwise.
    private func report(leaf: UInt8 = 1, intermediate: UInt8 = 2, intermediateName: String = "R11", caPin: UInt8 = 3, at date: Date)
        -> HostReport
    {
        let chain = [
            certificate("CN=api.test", key: leaf, cert: leaf &+ 100, issuer: "CN=\(intermediateName)"),
            certificate("CN=\(intermediateName)", key: intermediate, cert: intermediate &+ 100, issuer: "CN=Root", days: 900),
            certificate("CN=Root", key: 3, cert: 103, issuer: "CN=Root", days: 5000),
        ]
        let pins = PinSet(
            ca: [Pin(kind: .spki, digest: [UInt8](repeating: caPin, count: 32), text: "ca")],
            leaf: [Pin(kind: .spki, digest: [UInt8](repeating: leaf, count: 32), text: "leaf")])
        let result = ProbeResult(address: "127.0.0.1", chain: chain, sentCount: 2, trusted: true, finishedAt: date)
        return Verdict.report(for: HostConfig(host: "api.test", pins: pins), result: result, now: date, warnDays: 21, criticalDays: 7)
    }

    private func refused(at date: Date) -> HostReport {
        Verdict.report(
            for: HostConfig(host: "api.test"), result: ProbeResult(failure: ProbeFailure(kind: .refused, message: "refused")), now: date,
            warnDays: 21, criticalDays: 7)
    }

    private func open(_ mode: HistoryStore.Mode = .writer, days: Int = 400, now: Date? = nil) throws -> HistoryStore {
        try HistoryStore(path: path, mode: mode, historyDays: days, now: now ?? start)
    }

    private func expectFailure(_ mode: HistoryStore.Mode = .writer, containing words: [String]) {
        do {
            _ = try open(mode)
            XCTFail("the store opened")
        } catch {
            for word in words + [path, "state: off"] {
                XCTAssertTrue("\(error)".contains(word), "\(word) not in: \(error)")
            }
        }
    }

    // MARK: Round trip and restart

    func testChangesAreRecordedOncePerChangeAndSurviveARestart() throws {
        do {
            let store = try open()
            _ = store.record([report(at: start)], at: start)
            for hour in 1...5 {
                _ = store.record(
                    [report(at: start.addingTimeInterval(Double(hour) * 3600))], at: start.addingTimeInterval(Double(hour) * 3600))
            }
            var rows = 0
            try store.connection.query("SELECT count(*) FROM chain") { rows = Int($0.integer(0)) }
            XCTAssertEqual(rows, 1, "an unchanged chain is one row")
            try store.connection.query("SELECT count(*) FROM status_change") { rows = Int($0.integer(0)) }
            XCTAssertEqual(rows, 1, "an unchanged status is one row")
        }
        // A restart: since comes from the file, not from now.
        let later = start.addingTimeInterval(2 * day)
        let store = try open(now: later)
        let annotated = store.record([report(at: later)], at: later)[0]
        XCTAssertEqual(annotated.history?.statusSince, start)
        XCTAssertEqual(annotated.history?.changesLast24Hours, 0)
        XCTAssertEqual(annotated.history?.renewal?.basis, .lifetime)
        var lastSeen: Int64 = 0
        try store.connection.query("SELECT last_seen FROM chain") { lastSeen = $0.integer(0) }
        XCTAssertEqual(lastSeen, Int64(later.timeIntervalSince1970))
    }

    func testLeafRenewalsAndACARotationMakeATimelineAndAForecast() throws {
        let store = try open()
        _ = store.record([report(leaf: 1, at: start)], at: start)
        _ = store.record([report(leaf: 4, at: start.addingTimeInterval(30 * day))], at: start.addingTimeInterval(30 * day))
        _ = store.record([report(leaf: 5, at: start.addingTimeInterval(60 * day))], at: start.addingTimeInterval(60 * day))
        let rotatedAt = start.addingTimeInterval(61 * day)
        let rotated = store.record([report(leaf: 5, intermediate: 8, intermediateName: "R13", at: rotatedAt)], at: rotatedAt)[0]
        XCTAssertTrue(rotated.alerts.contains(.chainChanged))
        XCTAssertEqual(rotated.severity, .warning)
        XCTAssertEqual(rotated.history?.renewal?.basis, .observed)
        XCTAssertEqual(rotated.history?.renewal?.cadence, 30 * day)
        XCTAssertEqual(rotated.history?.renewal?.date, start.addingTimeInterval(90 * day))
        let calm = store.record(
            [report(leaf: 5, intermediate: 8, intermediateName: "R13", at: rotatedAt)], at: rotatedAt.addingTimeInterval(60))[0]
        XCTAssertFalse(calm.alerts.contains(.chainChanged), "one cycle only")

        let timeline = try XCTUnwrap(try open(.reader).timelines(host: "api.test", port: nil, now: rotatedAt).first)
        let chainTexts = timeline.entries.filter { $0.kind == .chain }.map(\.text)
        XCTAssertEqual(chainTexts.count, 4, "\(chainTexts)")
        XCTAssertTrue(chainTexts[0].hasPrefix("first seen: CN=api.test under CN=R11 → CN=Root"))
        XCTAssertTrue(chainTexts[1].hasPrefix("leaf key changed (CN=api.test, new sha256/"))
        XCTAssertTrue(chainTexts[3].hasPrefix("intermediate changed CN=R11 → CN=R13"), chainTexts[3])
        XCTAssertEqual(timeline.renewal?.basis, .observed)
    }

    func testAFlappingStatusIsCountedAndSinceFollowsTheLatestChange() throws {
        var date = start
        do {
            let store = try open()
            var last: HostReport?
            for round in 0..<6 {
                date = start.addingTimeInterval(Double(round) * 600)
                last = store.record([round.isMultiple(of: 2) ? report(at: date) : refused(at: date)], at: date)[0]
            }
            XCTAssertEqual(last?.history?.changesLast24Hours, 5)
            XCTAssertEqual(last?.history?.statusSince, date)
        }
        // Read back after a restart, the count is the same.
        let reopened = try open(now: date)
        let again = reopened.record([refused(at: date)], at: date)[0]
        XCTAssertEqual(again.history?.changesLast24Hours, 5)
    }

    func testLeafOnlyHostsAreToldWhenTheyBreak() throws {
        let store = try open()
        let leafOnly = store.record([report(caPin: 77, at: start)], at: start)[0]
        XCTAssertEqual(leafOnly.status, .leafOnly)
        XCTAssertTrue(leafOnly.reason.contains("breaks in ~60 days (next leaf renewal)"), leafOnly.reason)
    }

    func testRetentionPrunesOldChangesButKeepsEachHostsLatest() throws {
        do {
            let store = try open()
            for month in 0..<6 {
                let date = start.addingTimeInterval(Double(month) * 30 * day)
                _ = store.record([report(leaf: UInt8(10 + month), at: date)], at: date)
            }
        }
        _ = try open(days: 45, now: start.addingTimeInterval(150 * day))
        let store = try open(.reader)
        var chains = 0
        try store.connection.query("SELECT count(*) FROM chain") { chains = Int($0.integer(0)) }
        XCTAssertEqual(chains, 2, "the last 45 days: the chains of day 120 and day 150")
    }

    func testMigrationFromAnEmptyFile() throws {
        FileManager.default.createFile(atPath: path, contents: Data())
        let store = try open()
        var version: Int64 = 0
        try store.connection.query("PRAGMA user_version") { version = $0.integer(0) }
        XCTAssertEqual(version, Int64(HistoryStore.schemaVersion))
    }

    func testInMemoryStoreLeavesNoFile() throws {
        let store = try HistoryStore(path: HistoryStore.inMemoryPath, mode: .writer)
        XCTAssertNotNil(store.record([report(at: start)], at: start)[0].history)
        XCTAssertFalse(FileManager.default.fileExists(atPath: HistoryStore.inMemoryPath))
    }

    // MARK: Wrong files

    func testAFileThatIsNotSQLiteIsRefusedAndLeftAlone() throws {
        let garbage = Data("this is my shopping list\n".utf8)
        FileManager.default.createFile(atPath: path, contents: garbage)
        expectFailure(containing: ["not a pinwatch state file"])
        XCTAssertEqual(FileManager.default.contents(atPath: path), garbage)
    }

    func testADamagedDatabaseIsRefusedAndLeftAlone() throws {
        _ = try open().record([report(at: start)], at: start)
        var bytes = try XCTUnwrap(FileManager.default.contents(atPath: path))
        // Keep the 16-byte magic, wreck the header and the first pages.
        for index in 16..<min(bytes.count, 4096) { bytes[index] = 0xFF }
        try bytes.write(to: URL(fileURLWithPath: path))
        expectFailure(containing: ["damaged"])
        XCTAssertEqual(FileManager.default.contents(atPath: path), bytes)
    }

    func testAnotherProgramsDatabaseIsRefused() throws {
        let foreign = try SQLiteConnection(path: path, readOnly: false)
        try foreign.execute("CREATE TABLE recipes(name TEXT)")
        expectFailure(containing: ["another program"])
    }

    func testAStateFileFromANewerPinwatchIsRefused() throws {
        do {
            _ = try open()
        }
        let newer = try SQLiteConnection(path: path, readOnly: false)
        try newer.execute("PRAGMA user_version=\(HistoryStore.schemaVersion + 1)")
        expectFailure(containing: ["newer pinwatch", "schema \(HistoryStore.schemaVersion + 1)"])
    }

    func testASecondWriterIsToldWhoHasTheFileAndAReaderIsNot() throws {
        var first: HistoryStore? = try open()
        XCTAssertNotNil(first)
        expectFailure(containing: ["in use by pinwatch (PID \(getpid()))"])
        XCTAssertNoThrow(try open(.reader), "history reads while a writer runs")
        // The lock goes with its holder.
        first = nil
        XCTAssertNoThrow(try open())
    }

    func testAFolderThatCannotBeCreatedIsAClearError() {
        do {
            _ = try HistoryStore(path: "/proc/pinwatch-nowhere/state.sqlite", mode: .writer)
            XCTFail("opened")
        } catch {
            XCTAssertTrue(error.description.contains("cannot create the folder /proc/pinwatch-nowhere"), error.description)
            XCTAssertTrue(error.description.contains("state: off"), error.description)
        }
    }

    func testReadingWithoutAStateFileSaysNothingWasRecorded() {
        expectFailure(.reader, containing: ["nothing has been recorded yet"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: path), "a reader creates nothing")
    }
}
