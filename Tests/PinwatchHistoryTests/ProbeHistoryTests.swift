import Foundation
import PinwatchCore
import XCTest

@testable import PinwatchHistory

/// DESIGN §11 and §13: the history of a host with `addresses: all` records each
/// address's chain, so `pinwatch history HOST` shows a rolling rotation
/// address by address, across restarts.
final class ProbeHistoryTests: XCTestCase {
    private var folder = ""
    private var path: String { folder + "/state.sqlite" }
    private let start = Date(timeIntervalSince1970: 1_800_000_000)

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "pinwatch-probe-history-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: folder)
    }

    private var host: HostConfig {
        var host = HostConfig(host: "api.test", pins: PinSet(ca: [Pin(kind: .spki, digest: [UInt8](repeating: 3, count: 32), text: "ca")]))
        host.addresses = .all
        return host
    }

    private func certificate(_ subject: String, key: UInt8, issuer: String, days: Double) -> ChainCertificate {
        ChainCertificate(
            facts: CertificateFacts(
                subject: subject, issuer: issuer, notBefore: start, notAfter: start.addingTimeInterval(days * 86_400),
                keyDescription: "ECDSA P-256", spkiSHA256: [UInt8](repeating: key, count: 32),
                keySHA256: [UInt8](repeating: key, count: 32), certSHA256: [UInt8](repeating: key &+ 100, count: 32)),
            fromServer: true)
    }

    /// Chain "old" (leaf 1 under R11, key 2) or "new" (leaf 5 under R12, key 12), same root.
    private func chain(rotated: Bool) -> [ChainCertificate] {
        let (leaf, intermediate, name): (UInt8, UInt8, String) = rotated ? (5, 12, "R12") : (1, 2, "R11")
        return [
            certificate("CN=api.test", key: leaf, issuer: "CN=\(name)", days: 90),
            certificate("CN=\(name)", key: intermediate, issuer: "CN=Root", days: 900),
            certificate("CN=Root", key: 3, issuer: "CN=Root", days: 5000),
        ]
    }

    /// One cycle's folded report: which of .2 and .3 serve the rotated chain.
    private func cycle(rotated: [String: Bool], at date: Date) throws -> HostReport {
        let outcomes = ["127.0.0.2", "127.0.0.3"].map { address in
            let result = ProbeResult(
                address: address, chain: chain(rotated: rotated[address] ?? false), sentCount: 2, trusted: true, finishedAt: date)
            return (
                variant: ProbeVariant(address: address),
                report: Verdict.report(for: host, result: result, now: date, warnDays: 21, criticalDays: 7)
            )
        }
        return try XCTUnwrap(VariantFold.fold(outcomes))
    }

    func testARollingRotationIsRecordedAddressByAddressAcrossARestart() throws {
        var store: HistoryStore? = try HistoryStore(path: path, mode: .writer, historyDays: 400, now: start)
        let times = (0..<4).map { start.addingTimeInterval(Double($0) * 60) }
        _ = store?.record([try cycle(rotated: [:], at: times[0])], at: times[0])
        let second = store?.record([try cycle(rotated: ["127.0.0.3": true], at: times[1])], at: times[1]).first
        XCTAssertTrue(
            second?.history?.recent.contains { $0.text.hasPrefix("127.0.0.3: ") && $0.text.contains("R12") } ?? false,
            "the detail view's recent entries: \(second?.history?.recent.map(\.text) ?? [])")
        XCTAssertEqual(second?.history?.probeChainsSince, ["127.0.0.2": times[0], "127.0.0.3": times[1]])
        store = nil

        store = try HistoryStore(path: path, mode: .writer, historyDays: 400, now: times[2])
        _ = store?.record([try cycle(rotated: ["127.0.0.2": true, "127.0.0.3": true], at: times[2])], at: times[2])
        let last = store?.record([try cycle(rotated: ["127.0.0.2": true, "127.0.0.3": true], at: times[3])], at: times[3]).first
        XCTAssertEqual(
            last?.history?.probeChainsSince, ["127.0.0.2": times[2], "127.0.0.3": times[1]],
            "since when each address serves its chain, the one from before the restart included")
        store = nil

        let reader = try HistoryStore(path: path, mode: .reader, historyDays: 400, now: times[3])
        let timeline = try XCTUnwrap(try reader.timelines(host: "api.test", port: nil, now: times[3]).first)
        let probeEntries = timeline.entries.filter { $0.text.hasPrefix("127.0.0.") }
        XCTAssertEqual(
            probeEntries.map { "\(Int($0.date.timeIntervalSince(start)))s \($0.text.prefix(9))" },
            ["0s 127.0.0.2", "0s 127.0.0.3", "60s 127.0.0.3", "120s 127.0.0.2"],
            "each address's first sighting and change once, none for an unchanged cycle nor the restart: "
                + timeline.entries.map(\.text).joined(separator: " | "))
        let rotation = probeEntries.dropFirst(2).first?.text ?? ""
        XCTAssertTrue(rotation.contains("R11") && rotation.contains("R12"), rotation)
    }
}
