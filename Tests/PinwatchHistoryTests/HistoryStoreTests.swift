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

    /// DESIGN §13 (one writer): beside the writer that holds the file, a
    /// reader's `record` gives reports the history the writer recorded
    /// (its chain change included) and writes nothing.
    func testAReaderRecordsNothingAndGivesTheWritersHistory() throws {
        let writer = try open()
        _ = writer.record([report(at: start)], at: start)
        let rotatedAt = start.addingTimeInterval(day)
        _ = writer.record([report(intermediate: 4, intermediateName: "R12", at: rotatedAt)], at: rotatedAt)
        let entriesBefore = try XCTUnwrap(try open(.reader).timelines(host: "api.test", port: nil).first).entries.count

        let reader = try open(.reader)
        XCTAssertTrue(reader.isReadOnly)
        let later = rotatedAt.addingTimeInterval(3_600)
        let read = reader.record([report(intermediate: 4, intermediateName: "R12", at: later), refused(at: later)], at: later)
        XCTAssertEqual(read[0].history?.statusSince, start, "the writer's, not this run's")
        XCTAssertTrue(read[0].alerts.contains(.chainChanged), "\(read[0].alerts)")
        XCTAssertNotNil(read[1].history, "a host the writer has: its status changes here, in memory only")
        let unknown = reader.record([report(host: "new.test", at: later)], at: later)
        XCTAssertEqual(unknown[0].history?.statusSince, later)
        XCTAssertEqual(reader.writeHealth.failedWrites, 0)

        let after = try open(.reader)
        XCTAssertEqual(try XCTUnwrap(try after.timelines(host: "api.test", port: nil).first).entries.count, entriesBefore)
        XCTAssertTrue(try after.timelines(host: "new.test", port: nil).isEmpty, "nothing written")
        _ = writer
    }

    // MARK: Fixtures

    private func certificate(_ subject: String, key: UInt8, cert: UInt8, issuer: String, days: Double = 90, issued: Date? = nil)
        -> ChainCertificate
    {
        let notBefore = issued ?? start
        return ChainCertificate(
            facts: CertificateFacts(
                subject: subject, issuer: issuer, notBefore: notBefore, notAfter: notBefore.addingTimeInterval(days * day),
                keyDescription: "ECDSA P-256", spkiSHA256: [UInt8](repeating: key, count: 32),
                keySHA256: [UInt8](repeating: key, count: 32),
                certSHA256: [UInt8](repeating: cert, count: 32)),
            fromServer: true)
    }

    /// api.test with leaf `leaf` under intermediate `intermediate`; the CA
    /// pin is key 3 (the root) unless `caPin` says otherwise.
    private func report(
        host: String = "api.test", leaf: UInt8 = 1, intermediate: UInt8 = 2, intermediateName: String = "R11", caPin: UInt8 = 3,
        leafPinned: Bool = true, leafIssued: Date? = nil, at date: Date
    ) -> HostReport {
        let chain = [
            certificate("CN=api.test", key: leaf, cert: leaf &+ 100, issuer: "CN=\(intermediateName)", issued: leafIssued),
            certificate("CN=\(intermediateName)", key: intermediate, cert: intermediate &+ 100, issuer: "CN=Root", days: 900),
            certificate("CN=Root", key: 3, cert: 103, issuer: "CN=Root", days: 5000),
        ]
        let pins = PinSet(
            ca: [Pin(kind: .spki, digest: [UInt8](repeating: caPin, count: 32), text: "ca")],
            leaf: leafPinned ? [Pin(kind: .spki, digest: [UInt8](repeating: leaf, count: 32), text: "leaf")] : [])
        let result = ProbeResult(address: "127.0.0.1", chain: chain, sentCount: 2, trusted: true, finishedAt: date)
        return Verdict.report(for: HostConfig(host: host, pins: pins), result: result, now: date, warnDays: 21, criticalDays: 7)
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

    /// The store holds hosts, chains and who acknowledged what: the
    /// database, its -wal and its -shm are the owner's alone, whatever the
    /// umask.
    func testTheStoreFilesAreTheOwnersAloneWhateverTheUmask() throws {
        let previous = umask(0o022)
        defer { umask(previous) }
        let store = try open()
        _ = store.record([report(at: start)], at: start)
        for suffix in ["", "-wal", "-shm"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: path + suffix)
            XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600, "state.sqlite\(suffix)")
        }
        let unrelated = folder + "/other.sqlite"
        FileManager.default.createFile(atPath: unrelated, contents: nil, attributes: [.posixPermissions: 0o640])
        _ = try SQLiteConnection(path: unrelated, readOnly: false)
        let kept = try FileManager.default.attributesOfItem(atPath: unrelated)[.posixPermissions] as? NSNumber
        XCTAssertEqual(kept?.intValue, 0o640, "a file that exists keeps the mode its owner gave it")
        _ = store
    }

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
        // Each leaf seen the day after its issue: the cadence comes from the issue dates.
        for (leaf, issued) in [(UInt8(1), 0.0), (4, 30), (5, 60)] {
            let date = start.addingTimeInterval((issued + 1) * day)
            _ = store.record([report(leaf: leaf, leafIssued: start.addingTimeInterval(issued * day), at: date)], at: date)
        }
        let rotatedAt = start.addingTimeInterval(62 * day)
        let rotated = store.record(
            [report(leaf: 5, intermediate: 8, intermediateName: "R13", leafIssued: start.addingTimeInterval(60 * day), at: rotatedAt)],
            at: rotatedAt)[0]
        XCTAssertTrue(rotated.alerts.contains(.chainChanged))
        XCTAssertEqual(rotated.severity, .warning)
        XCTAssertEqual(rotated.history?.renewal?.basis, .observed)
        XCTAssertEqual(rotated.history?.renewal?.cadence, 30 * day)
        XCTAssertEqual(rotated.history?.renewal?.date, start.addingTimeInterval(90 * day))
        XCTAssertEqual(
            rotated.reason, "the CA-level keys changed (intermediate CN=R11 → CN=R13): pins still match, but a CA rotation may have begun")
        let rotatedAgain = { (date: Date) in
            self.report(
                leaf: 5, intermediate: 8, intermediateName: "R13", leafIssued: self.start.addingTimeInterval(60 * self.day), at: date)
        }
        let nextCycle = rotatedAt.addingTimeInterval(60)
        XCTAssertTrue(store.record([rotatedAgain(nextCycle)], at: nextCycle)[0].alerts.contains(.chainChanged), "not one cycle only")
        let nextDay = rotatedAt.addingTimeInterval(HostHistory.chainChangeWindow + 60)
        let calm = store.record([rotatedAgain(nextDay)], at: nextDay)[0]
        XCTAssertFalse(calm.alerts.contains(.chainChanged), "the warning's time is over")

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

    /// The catalogue knows the chain's intermediate (key 2) as Let's
    /// Encrypt's: the 90-day leaf issued 2027-01-15 keeps its own lifetime
    /// and renews at 60 days; the leaf issued then falls under the 64-day
    /// profile, which the reason names.
    func testAKnownFamilysScheduleBindsTheNextLeafNotTheCurrentOne() throws {
        let store = try open()
        let intermediate = CatalogueCertificate(
            name: "R11", facts: certificate("CN=R11", key: 2, cert: 102, issuer: "CN=Root").facts, file: "r11.pem")
        store.catalogue = Catalogue(families: [
            CatalogueFamily(
                name: "letsencrypt", displayName: "Let's Encrypt", roots: [],
                intermediates: [CatalogueIntermediate(certificate: intermediate, state: .active, root: "ISRG Root X1")],
                lifetimes: [LifetimeStep(from: Date(timeIntervalSince1970: 1_802_217_600), days: 64, source: "letsencrypt.org")],
                origin: "built-in")
        ])
        let leafOnly = store.record([report(caPin: 77, at: start)], at: start)[0]
        XCTAssertTrue(
            leafOnly.reason.contains("breaks in ~60 days (next leaf renewal: Let's Encrypt's 64-day profile from 2027-02-10)"),
            leafOnly.reason)
        XCTAssertEqual(leafOnly.history?.renewal?.rule, "Let's Encrypt's 64-day profile from 2027-02-10")
    }

    /// Backends rolled back to the chain before: the return is a change of
    /// its own in the timeline, and after a restart the chain served last
    /// is the one compared with, not the newest stored.
    func testAReturnToAChainSeenBeforeIsRecorded() throws {
        let dates = (0..<4).map { start.addingTimeInterval(Double($0) * 3600) }
        do {
            let store = try open()
            _ = store.record([report(leaf: 1, at: dates[0])], at: dates[0])
            _ = store.record([report(leaf: 4, at: dates[1])], at: dates[1])
            _ = store.record([report(leaf: 1, at: dates[2])], at: dates[2])
        }
        let store = try open(now: dates[3])
        let again = store.record([report(leaf: 1, at: dates[3])], at: dates[3])[0]
        XCTAssertEqual(again.history?.recent.filter { $0.date == dates[3] }, [], "no change after the restart")
        var rows = 0
        try store.connection.query("SELECT count(*) FROM chain") { rows = Int($0.integer(0)) }
        XCTAssertEqual(rows, 2, "two distinct chains")
        let timeline = try XCTUnwrap(try open(.reader).timelines(host: "api.test", port: nil, now: dates[3]).first)
        let changes = timeline.entries.filter { $0.kind == .chain }
        XCTAssertEqual(changes.map(\.date), Array(dates.prefix(3)), "\(changes)")
        XCTAssertTrue(changes[2].text.hasPrefix("leaf key changed (CN=api.test, new \(PinText.sha256([UInt8](repeating: 1, count: 32))))"))
        XCTAssertEqual(timeline.lastSeen, dates[3])
    }

    /// A schema 1 file (each chain's first sighting only) is read as it is
    /// and migrated by the first writer, its chains becoming changes.
    func testASchemaOneFileIsReadAndMigrated() throws {
        do {
            let old = try SQLiteConnection(path: path, readOnly: false)
            try old.execute(
                """
                CREATE TABLE host(
                    id INTEGER PRIMARY KEY, identity TEXT NOT NULL UNIQUE,
                    host TEXT NOT NULL, port INTEGER NOT NULL, sni TEXT NOT NULL, connect TEXT);
                CREATE TABLE name(id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE);
                CREATE TABLE certificate(
                    id INTEGER PRIMARY KEY, digest_key INTEGER NOT NULL, digest BLOB NOT NULL, spki BLOB NOT NULL,
                    subject_id INTEGER NOT NULL REFERENCES name(id), issuer_id INTEGER NOT NULL REFERENCES name(id),
                    not_before INTEGER NOT NULL, not_after INTEGER NOT NULL);
                CREATE INDEX certificate_by_digest ON certificate(digest_key);
                CREATE TABLE chain(
                    id INTEGER PRIMARY KEY, host_id INTEGER NOT NULL REFERENCES host(id),
                    levels TEXT NOT NULL, first_seen INTEGER NOT NULL, last_seen INTEGER NOT NULL);
                CREATE INDEX chain_by_host ON chain(host_id, first_seen);
                CREATE TABLE status_change(
                    id INTEGER PRIMARY KEY, host_id INTEGER NOT NULL REFERENCES host(id), at INTEGER NOT NULL,
                    status TEXT NOT NULL, severity TEXT NOT NULL, reason TEXT NOT NULL, alerts TEXT NOT NULL);
                CREATE INDEX status_by_host ON status_change(host_id, at);
                INSERT INTO host VALUES (1, 'api.test:443', 'api.test', 443, 'api.test', NULL);
                INSERT INTO name VALUES (1, 'CN=api.test'), (2, 'CN=R11');
                INSERT INTO certificate VALUES (1, 1, x'01', x'01', 1, 2, 1800000000, 1807776000);
                INSERT INTO certificate VALUES (2, 2, x'02', x'02', 1, 2, 1800086400, 1807862400);
                INSERT INTO chain VALUES (1, 1, 'l1', 1800000000, 1800000000), (2, 1, 'l2', 1800086400, 1800090000);
                PRAGMA application_id=\(HistoryStore.applicationID);
                PRAGMA user_version=1;
                """)
        }
        let read = try XCTUnwrap(try open(.reader).timelines(host: "api.test", port: nil).first)
        XCTAssertEqual(read.entries.filter { $0.kind == .chain }.count, 2, "\(read.entries)")
        _ = try open()
        let migrated = try XCTUnwrap(try open(.reader).timelines(host: "api.test", port: nil).first)
        XCTAssertEqual(migrated.entries, read.entries)
        var version: Int64 = 0
        try open(.reader).connection.query("PRAGMA user_version") { version = $0.integer(0) }
        XCTAssertEqual(version, Int64(HistoryStore.schemaVersion), "migrated to the latest schema")
    }

    /// The warning holds across a restart within its time, and the next
    /// chain change ends it.
    func testTheChainChangedWarningHoldsAcrossARestartUntilTheNextChange() throws {
        let rotatedAt = start.addingTimeInterval(3600)
        do {
            let store = try open()
            _ = store.record([report(at: start)], at: start)
            let rotated = store.record([report(intermediate: 8, intermediateName: "R13", at: rotatedAt)], at: rotatedAt)[0]
            XCTAssertTrue(rotated.alerts.contains(.chainChanged))
        }
        let later = rotatedAt.addingTimeInterval(600)
        let store = try open(now: later)
        let afterRestart = store.record([report(intermediate: 8, intermediateName: "R13", at: later)], at: later)[0]
        XCTAssertTrue(afterRestart.alerts.contains(.chainChanged), afterRestart.reason)
        XCTAssertTrue(afterRestart.reason.contains("(intermediate CN=R11 → CN=R13)"), afterRestart.reason)
        let renewedAt = later.addingTimeInterval(600)
        let renewed = store.record([report(leaf: 9, intermediate: 8, intermediateName: "R13", at: renewedAt)], at: renewedAt)[0]
        XCTAssertFalse(renewed.alerts.contains(.chainChanged), "a later change ends it")
    }

    /// A pool rotation that leaves the pins behind: the blocked reason says
    /// what moved, what the pins matched before, and which level of the
    /// chain served now a pin would have to name.
    func testABlockedHostAfterARotationNamesWhatMovedAndWhichLevelWouldMatch() throws {
        let store = try open()
        let before = store.record([report(caPin: 2, leafPinned: false, at: start)], at: start)[0]
        XCTAssertEqual(before.status, .ok, before.reason)
        let movedAt = start.addingTimeInterval(3600)
        let moved = store.record([report(intermediate: 8, intermediateName: "R13", caPin: 2, leafPinned: false, at: movedAt)], at: movedAt)[
            0]
        XCTAssertEqual(moved.status, .blocked)
        XCTAssertEqual(
            moved.reason,
            "pinned clients refuse this host now: no configured pin matches the chain: the chain moved \(DateText.day(movedAt)) "
                + "(intermediate CN=R11 → CN=R13); the configured pins matched the intermediate CN=R11 before; "
                + "a CA pin on the root CN=Root (level 2), which did not move, would match")
        // A reason without the history (state: off) stays as it was.
        XCTAssertEqual(
            report(intermediate: 8, intermediateName: "R13", caPin: 2, leafPinned: false, at: movedAt).reason,
            "pinned clients refuse this host now: no configured pin matches the chain")
    }

    /// A host announced as chain_changed long ago is no news after a
    /// restart: the store recorded the warning it was announced with, so
    /// the first result after the restart is no transition for the hooks.
    func testARestartDoesNotAnnounceAChainChangeAgain() throws {
        let rotatedAt = start.addingTimeInterval(3600)
        do {
            let store = try open()
            let first = store.record([report(at: start)], at: start)[0]
            XCTAssertNil(SeverityTransition.between(nil, first, at: start), "a healthy host first seen is no news")
            let calm = store.record([report(at: rotatedAt - 60)], at: rotatedAt - 60)[0]
            let rotated = store.record([report(intermediate: 8, intermediateName: "R13", at: rotatedAt)], at: rotatedAt)[0]
            let announced = try XCTUnwrap(SeverityTransition.between(calm, rotated, at: rotatedAt), "the rotation is announced once")
            XCTAssertEqual(announced.report.severity, .warning)
        }
        let later = rotatedAt.addingTimeInterval(600)
        let store = try open(now: later)
        let afterRestart = store.record([report(intermediate: 8, intermediateName: "R13", at: later)], at: later)[0]
        XCTAssertTrue(afterRestart.alerts.contains(.chainChanged), afterRestart.reason)
        XCTAssertEqual(afterRestart.history?.previousSeverity, .warning, "the store recorded the warning it announced")
        let again = SeverityTransition.between(nil, afterRestart, at: later)
        XCTAssertTrue(again == nil, "re-announced after the restart: \(again?.json ?? "")")
        let timeline = afterRestart.history?.recent.map(\.text) ?? []
        XCTAssertEqual(timeline.filter { $0.hasPrefix("status ") }.count, 2, "ok, then the warning: \(timeline)")
    }

    /// The demo's rotation: a host first seen, then minutes later a new
    /// leaf. pinwatch's own first sighting is no renewal: the forecast
    /// comes from the leaf's lifetime, and the reason never says "~0 days".
    func testAFirstSightingAndOneReplacementGiveNoCadence() throws {
        let replacedAt = start.addingTimeInterval(300)
        do {
            let store = try open()
            _ = store.record([report(caPin: 77, at: start)], at: start)
            let replaced = store.record([report(leaf: 6, caPin: 77, leafIssued: replacedAt, at: replacedAt)], at: replacedAt)[0]
            XCTAssertEqual(replaced.status, .leafOnly)
            XCTAssertEqual(replaced.history?.renewal?.basis, .lifetime)
            XCTAssertTrue(replaced.reason.contains("breaks in ~60 days (next leaf renewal)"), replaced.reason)
        }
        // The same after a restart, read back from the file.
        let later = replacedAt.addingTimeInterval(600)
        let reopened = try open(now: later)
        let again = reopened.record([report(leaf: 6, caPin: 77, leafIssued: replacedAt, at: later)], at: later)[0]
        XCTAssertEqual(again.history?.renewal?.basis, .lifetime)
        XCTAssertNil(again.history?.renewal?.cadence)
    }

    /// A long-running `watch` or `serve` holds one connection for days: its
    /// page cache stays within its bound however large the file grows,
    /// while every page of it is read.
    func testThePageCacheStaysWithinItsBoundAsTheFileGrows() throws {
        let store = try open()
        let hosts = (0..<3_000).map { "host\($0).api.test" }
        for cycle in 0..<6 {
            let date = start.addingTimeInterval(Double(cycle) * day)
            _ = store.record(hosts.map { report(host: $0, leaf: UInt8(10 + cycle), at: date) }, at: date)
        }
        try store.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        let fileBytes = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        let bound = SQLiteConnection.pageCacheKiB * 1_024
        XCTAssertGreaterThan(fileBytes, 4 * bound, "a file larger than the cache, or the test shows nothing")

        var rows = 0
        for table in ["host", "chain", "chain_change", "status_change", "certificate"] {
            try store.connection.query("SELECT * FROM \(table)") { _ in rows += 1 }
        }
        for host in hosts.prefix(200) { _ = try store.timelines(host: host, port: nil) }
        XCTAssertGreaterThan(rows, hosts.count)
        // Each page carries a header of its own beside its 4 KiB.
        XCTAssertLessThanOrEqual(store.connection.pageCacheBytes, bound + bound / 4, "file of \(fileBytes) bytes")
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

    // MARK: Reading a window

    /// 300 status flips and a leaf change in the middle: the window shows
    /// the latest entries exactly as the whole timeline has them, and
    /// counts the rest.
    func testAWindowShowsTheLatestEntriesOfTheWholeTimelineAndCountsTheRest() throws {
        do {
            let store = try open()
            for round in 0..<300 {
                let date = start.addingTimeInterval(Double(round) * 600)
                _ = store.record([round.isMultiple(of: 2) ? report(leaf: round < 250 ? 1 : 4, at: date) : refused(at: date)], at: date)
            }
        }
        let reader = try open(.reader)
        let whole = try XCTUnwrap(try reader.timelines(host: "api.test", port: nil, now: start).first).entries
        XCTAssertEqual(whole.count, 302, "300 statuses and 2 chains")
        func window(_ window: HistoryWindow) throws -> (omitted: Int, entries: [TimelineEntry]) {
            var omitted = -1
            var entries: [TimelineEntry] = []
            try reader.forEachTimeline(
                host: "api.test", port: nil, window: window, now: start, heading: { omitted = $1 }, entry: { entries.append($0) })
            return (omitted, entries)
        }
        for limit in [1, 2, 50, 51, 52, 53, 100, 301, 302] {
            let shown = try window(HistoryWindow(since: nil, limit: limit))
            XCTAssertEqual(shown.entries, Array(whole.suffix(limit)), "limit \(limit)")
            XCTAssertEqual(shown.omitted, 302 - limit, "limit \(limit)")
        }
        let everything = try window(HistoryWindow(since: nil, limit: 1000))
        XCTAssertEqual(everything.entries, whole)
        XCTAssertEqual(everything.omitted, 0)
        // From round 250 on: its leaf change, and rounds 250…299.
        let since = start.addingTimeInterval(250 * 600)
        let recent = try window(HistoryWindow(since: since, limit: nil))
        XCTAssertEqual(recent.entries, whole.filter { $0.date >= since })
        XCTAssertEqual(recent.entries.count, 51)
        XCTAssertEqual(recent.omitted, 0, "the window's own cut is not counted as left out")
        XCTAssertTrue(recent.entries[1].text.hasPrefix("status error → ok"), recent.entries[1].text)
        let recentFew = try window(HistoryWindow(since: since, limit: 10))
        XCTAssertEqual(recentFew.entries, Array(whole.suffix(10)))
        XCTAssertEqual(recentFew.omitted, 41)
    }

    // MARK: Failing writes

    /// SQLite's page ceiling makes a write that needs a new page fail with
    /// SQLITE_FULL, the way a full disk does; lifting it is the space
    /// coming back.
    func testAFullDiskIsRetriedEachCycleAndRecordingResumesWhenThereIsSpace() throws {
        let store = try open()
        _ = store.record([report(at: start), report(host: "big.test", at: start)], at: start)
        var pages: Int64 = 0
        try store.connection.query("PRAGMA page_count") { pages = $0.integer(0) }
        try store.connection.execute("PRAGMA max_page_count=\(pages)")
        // api.test's new leaf fits; big.test's issuer name needs pages there
        // are not, after api.test's rows were written in the same transaction.
        let longName = String(repeating: "x", count: 20_000)
        let renewed = { (date: Date) in
            [self.report(leaf: 9, at: date), self.report(host: "big.test", leaf: 8, intermediateName: longName, at: date)]
        }
        for cycle in 1...3 {
            let date = start.addingTimeInterval(Double(cycle) * 60)
            let annotated = store.record(renewed(date), at: date)
            XCTAssertNil(annotated[0].history, "a failed write gives no history")
            XCTAssertEqual(store.writeHealth.failedWrites, cycle, "every cycle tries again")
            XCTAssertTrue(store.writeHealth.failing)
        }
        XCTAssertTrue(store.writeHealth.lastFailure?.contains("full") == true, "\(String(describing: store.writeHealth.lastFailure))")

        try store.connection.execute("PRAGMA max_page_count=1000000")
        let freed = start.addingTimeInterval(3600)
        let resumed = store.record(renewed(freed), at: freed)[0]
        XCTAssertFalse(store.writeHealth.failing)
        XCTAssertEqual(store.writeHealth.failedWrites, 3)
        XCTAssertNotNil(resumed.history, "recorded again")
        let timeline = try XCTUnwrap(try open(.reader).timelines(host: "api.test", port: nil, now: freed).first)
        let changes = timeline.entries.filter { $0.kind == .chain && $0.date == freed }.map(\.text)
        XCTAssertEqual(changes.count, 1, "the change missed while the disk was full is recorded now: \(timeline.entries)")
        XCTAssertTrue(changes.first?.hasPrefix("leaf key changed") == true, "\(changes)")
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

    /// Damage in a page only a writer would read (the certificates' index)
    /// is refused by a reader too, before it shows anything.
    func testDamageIsRefusedByReadersAndWritersAlike() throws {
        do {
            let store = try open()
            for round in 0..<40 {
                let date = start.addingTimeInterval(Double(round) * day)
                _ = store.record([report(leaf: UInt8(10 + round), at: date)], at: date)
            }
        }
        var page: Int64 = 0
        var pageSize: Int64 = 0
        do {
            let inspector = try SQLiteConnection(path: path, readOnly: true)
            try inspector.query("SELECT rootpage FROM sqlite_master WHERE name = 'certificate_by_digest'") { page = $0.integer(0) }
            try inspector.query("PRAGMA page_size") { pageSize = $0.integer(0) }
        }
        XCTAssertGreaterThan(page, 1)
        var bytes = try XCTUnwrap(FileManager.default.contents(atPath: path))
        let pageStart = Int((page - 1) * pageSize)
        for index in pageStart..<pageStart + Int(pageSize) { bytes[index] = 0xA5 }
        try bytes.write(to: URL(fileURLWithPath: path))
        expectFailure(.reader, containing: ["damaged", "left untouched"])
        expectFailure(.writer, containing: ["damaged", "left untouched"])
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
