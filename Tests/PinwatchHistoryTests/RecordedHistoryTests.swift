import Foundation
import PinwatchCore
import XCTest

@testable import PinwatchHistory

/// `recordedHistory(of:now:)`, what `inspect`'s picture reads: the host's
/// recorded history beside a live report, with nothing written.
final class RecordedHistoryTests: XCTestCase {
    private var folder = ""
    private var path: String { folder + "/state.sqlite" }
    private let start = Date(timeIntervalSince1970: 1_800_000_000)

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "pinwatch-recorded-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: folder)
    }

    private func report(host: String, pinned: Bool, at date: Date) -> HostReport {
        let facts = CertificateFacts(
            subject: "CN=\(host)", issuer: "CN=\(host)", notBefore: start, notAfter: start.addingTimeInterval(90 * 86_400),
            keyDescription: "ECDSA P-256", spkiSHA256: [UInt8](repeating: 1, count: 32), keySHA256: [UInt8](repeating: 2, count: 32),
            certSHA256: [UInt8](repeating: 3, count: 32))
        let pins = pinned ? PinSet(leaf: [Pin(kind: .spki, digest: [UInt8](repeating: 1, count: 32), text: "leaf")]) : PinSet()
        let result = ProbeResult(
            address: "127.0.0.1", chain: [ChainCertificate(facts: facts, fromServer: true)], sentCount: 1, trusted: true, finishedAt: date)
        return Verdict.report(for: HostConfig(host: host, pins: pins), result: result, now: date, warnDays: 21, criticalDays: 7)
    }

    func testARecordedHostGetsItsHistoryAndAnUnknownOneNothingAndNothingIsWritten() throws {
        do {
            let writer = try HistoryStore(path: path, mode: .writer, historyDays: 400, now: start)
            _ = writer.record([report(host: "api.test", pinned: true, at: start)], at: start)
        }
        let written = try Data(contentsOf: URL(fileURLWithPath: path))

        let reader = try HistoryStore(path: path, mode: .reader, historyDays: 400, now: start)
        let later = start.addingTimeInterval(3_600)
        let same = try reader.recordedHistory(of: report(host: "api.test", pinned: true, at: later), now: later)
        XCTAssertEqual(same.history?.statusSince, start)
        XCTAssertEqual(same.history?.recent.first?.text.hasPrefix("first seen: CN=api.test"), true)
        let otherStatus = try reader.recordedHistory(of: report(host: "api.test", pinned: false, at: later), now: later)
        XCTAssertNil(otherStatus.history?.statusSince, "a recorded leaf_only does not date a live unpinned")
        XCTAssertEqual(otherStatus.history?.recent.count, same.history?.recent.count)
        let unknown = try reader.recordedHistory(of: report(host: "new.test", pinned: true, at: later), now: later)
        XCTAssertNil(unknown.history)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), written, "reading wrote nothing")
    }

    /// The timeline says what the dashboard said: an unpinned host whose
    /// leaf ends in 4 days is `expiring (critical)`, not `unpinned (critical)`,
    /// in `history`, the detail view and a store reopened.
    func testStatusEntriesUseTheHeadlineWords() throws {
        let late = start.addingTimeInterval(86 * 86_400)
        do {
            let writer = try HistoryStore(path: path, mode: .writer, historyDays: 400, now: start)
            _ = writer.record([report(host: "api.test", pinned: false, at: start)], at: start)
            let recorded = writer.record([report(host: "api.test", pinned: false, at: late)], at: late)
            XCTAssertEqual(
                recorded.first?.history?.recent.last?.text.hasPrefix("status unpinned → expiring (critical): the leaf certificate expires"),
                true, "\(recorded.first?.history?.recent ?? [])")
        }
        let timeline = try XCTUnwrap(
            try HistoryStore(path: path, mode: .reader, historyDays: 400, now: late).timelines(host: "api.test", port: nil).first)
        let statuses = timeline.entries.filter { $0.kind == .status }.map(\.text)
        XCTAssertEqual(statuses.first, "status unpinned (ok): no pins configured: inventory only")
        XCTAssertTrue(statuses.last?.hasPrefix("status unpinned → expiring (critical): ") == true, "\(statuses)")
    }
}
