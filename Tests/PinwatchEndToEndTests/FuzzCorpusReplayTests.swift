import Foundation
import XCTest

/// Every input in Fuzz/corpus (the seeds and every past finding, kept once
/// fixed) goes through its fuzz target in an ordinary build on every run,
/// so a parser that breaks on a known input fails here, not only under
/// scripts/fuzz.
final class FuzzCorpusReplayTests: XCTestCase {
    private static let targets = [
        "config", "pin", "certificate", "proxy-url", "no-proxy", "connect-reply", "socks5-reply", "probe-query",
        "nsc", "trustkit", "ats", "pin-strings", "cross-platform", "dynamic-list", "http-response", "catalogue-family", "prometheus-answer",
        "starttls-reply",
    ]

    func testEveryCommittedFuzzInputPasses() throws {
        let corpus = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fuzz/corpus")
        let binary = PinwatchBinary.url.deletingLastPathComponent().appendingPathComponent("pinwatch-fuzz").path
        for target in Self.targets {
            let folder = corpus.appendingPathComponent(target).path
            let inputs = try FileManager.default.contentsOfDirectory(atPath: folder)
            XCTAssertFalse(inputs.isEmpty, "\(target): no seeds")
            let outcome = try PinwatchBinary.runShell("'\(binary)' \(target) '\(folder)'")
            XCTAssertEqual(outcome.status, 0, "\(target): \(outcome.stderr)")
            XCTAssertEqual(outcome.stdout, "\(target): \(inputs.count) inputs replayed\n")
        }
    }

    /// A typo in a target or a lost corpus folder must not pass as "replayed".
    func testReplayRefusesUnknownTargetsAndMissingFiles() throws {
        let binary = PinwatchBinary.url.deletingLastPathComponent().appendingPathComponent("pinwatch-fuzz").path
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-replay-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        XCTAssertEqual(try PinwatchBinary.runShell("'\(binary)' nonsense '\(folder.path)'").status, 2)
        XCTAssertEqual(try PinwatchBinary.runShell("'\(binary)' pin '\(folder.path)/missing'").status, 1)
    }
}
