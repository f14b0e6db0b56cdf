import Foundation
import PinwatchCore
import XCTest

@testable import PinwatchHistory

/// Clients' pin-failure reports in the store: written beside the writer
/// through a connection of their own, raising `client_reports` at the
/// writer's next cycle for a day, bounded in rows, pruned with the rest of
/// the history, and absent (not an error) from a file older than their
/// table, which a writer then migrates.
final class ClientReportTableTests: XCTestCase {
    private var folder = ""
    private var path: String { folder + "/state.sqlite" }
    private let start = Date(timeIntervalSince1970: 1_800_000_000)
    private let day: TimeInterval = 86_400

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "pinwatch-client-reports-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: folder)
    }

    private func clientReport(at date: Date, client: String = "ios-7.1") -> ClientReportRecord {
        ClientReportRecord(
            receivedAt: date, host: "api.test", port: 443, client: client, format: "trustkit", outcome: "chain not trusted",
            chain: ["CN=api.test <- CN=Corp Inspection CA"])
    }

    private func certificate(_ subject: String, key: UInt8, issuer: String, days: Double) -> ChainCertificate {
        ChainCertificate(
            facts: CertificateFacts(
                subject: subject, issuer: issuer, notBefore: start, notAfter: start.addingTimeInterval(days * day),
                keyDescription: "ECDSA P-256", spkiSHA256: [UInt8](repeating: key, count: 32),
                keySHA256: [UInt8](repeating: key, count: 32), certSHA256: [UInt8](repeating: key &+ 100, count: 32)),
            fromServer: true)
    }

    /// api.test as pinwatch sees it: a trusted chain its CA pin matches.
    private func fine(at date: Date) -> HostReport {
        let chain = [
            certificate("CN=api.test", key: 1, issuer: "CN=R11", days: 90),
            certificate("CN=R11", key: 2, issuer: "CN=Root", days: 900),
            certificate("CN=Root", key: 3, issuer: "CN=Root", days: 5000),
        ]
        let pins = PinSet(ca: [Pin(kind: .spki, digest: [UInt8](repeating: 3, count: 32), text: "ca")], leaf: [])
        let result = ProbeResult(address: "127.0.0.1", chain: chain, sentCount: 3, trusted: true, finishedAt: date)
        return Verdict.report(for: HostConfig(host: "api.test", pins: pins), result: result, now: date, warnDays: 21, criticalDays: 7)
    }

    private func rowCount(_ store: HistoryStore) throws -> Int {
        var count = 0
        try store.connection.query("SELECT count(*) FROM client_report") { count = Int($0.integer(0)) }
        return count
    }

    func testReportsStoredBesideTheWriterRaiseClientReportsAtItsNextCycleForADay() throws {
        let writer = try HistoryStore(path: path, mode: .writer, now: start)
        let before = writer.record([fine(at: start)], at: start)[0]
        XCTAssertEqual(before.severity, .ok)
        XCTAssertFalse(before.alerts.contains(.clientReports))

        try ClientReportTable.store(clientReport(at: start.addingTimeInterval(60)), path: path)
        try ClientReportTable.store(clientReport(at: start.addingTimeInterval(90), client: "trustkit"), path: path)
        let next = start.addingTimeInterval(120)
        let raised = writer.record([fine(at: next)], at: next)[0]
        XCTAssertTrue(raised.alerts.contains(.clientReports), "\(raised.alerts)")
        XCTAssertEqual(raised.severity, .warning)
        XCTAssertEqual(raised.history?.clientReports?.count, 2)
        XCTAssertEqual(raised.history?.clientReports?.clients, ["ios-7.1", "trustkit"])
        XCTAssertEqual(raised.history?.clientReports?.latest.client, "trustkit")

        let shown = try XCTUnwrap(try HistoryStore(path: path, mode: .reader).timelines(host: "api.test", port: 443).first)
        XCTAssertEqual(shown.clientReports.map(\.client), ["ios-7.1", "trustkit"], "history lists them, oldest first")

        let dayLater = start.addingTimeInterval(90 + ClientReportFacts.window + 1)
        let quiet = writer.record([fine(at: dayLater)], at: dayLater)[0]
        XCTAssertFalse(quiet.alerts.contains(.clientReports), "a day after the latest report")
        XCTAssertEqual(quiet.severity, .ok)
    }

    func testTheNewestRowsAreKeptAndRetentionPrunesTheRest() throws {
        do {
            let writer = try HistoryStore(path: path, mode: .writer, now: start)
            try writer.connection.transaction {
                for index in 0..<ClientReportTable.rowLimit {
                    try writer.connection.query(
                        "INSERT INTO client_report(host, port, at, client, format, chain) VALUES ('api.test', 443, ?1, 'flood', 'hpkp', '')",
                        [.integer(Int64(start.timeIntervalSince1970) + Int64(index))])
                }
            }
            try ClientReportTable.store(clientReport(at: start.addingTimeInterval(2 * day)), path: path)
            XCTAssertEqual(try rowCount(writer), ClientReportTable.rowLimit, "the oldest went")
            var oldest = Int64(0)
            try writer.connection.query("SELECT min(at) FROM client_report") { oldest = $0.integer(0) }
            XCTAssertEqual(oldest, Int64(start.timeIntervalSince1970) + 1)
        }

        let later = start.addingTimeInterval(3 * day)
        let pruned = try HistoryStore(path: path, mode: .writer, historyDays: 2, now: later)
        XCTAssertEqual(try rowCount(pruned), 1, "only the report within history_days")
    }

    func testAFileFromBeforeTheTableReadsNoReportsAndAWriterAddsIt() throws {
        do {
            let writer = try HistoryStore(path: path, mode: .writer, now: start)
            _ = writer.record([fine(at: start)], at: start)
            // A version 5 file: without the tables of the steps after it.
            try writer.connection.execute(
                "DROP TABLE client_report; DROP TABLE ct_log_position; DROP TABLE ct_logged; PRAGMA user_version=5;")
        }
        let reader = try HistoryStore(path: path, mode: .reader)
        let read = reader.record([fine(at: start.addingTimeInterval(60))], at: start.addingTimeInterval(60))[0]
        XCTAssertFalse(read.alerts.contains(.clientReports))
        XCTAssertEqual(reader.writeHealth.failedWrites, 0, "an older file is read, not failed")
        XCTAssertEqual(try XCTUnwrap(try reader.timelines(host: "api.test", port: nil).first).clientReports, [])

        let migrated = try HistoryStore(path: path, mode: .writer, now: start.addingTimeInterval(120))
        XCTAssertEqual(try rowCount(migrated), 0)
        var version = Int64(0)
        try migrated.connection.query("PRAGMA user_version") { version = $0.integer(0) }
        XCTAssertEqual(version, Int64(HistoryStore.schemaVersion))
    }
}
