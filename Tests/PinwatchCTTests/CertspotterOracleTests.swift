import Foundation
import PinwatchCT
import PinwatchLocalWorld
import PinwatchTestSupport
import XCTest

/// Debian's certspotter, an RFC 6962 monitor written apart from pinwatch,
/// reads the same local log: it must find the same entries for a watched
/// name, and refuse the same tampered log.
final class CertspotterOracleTests: XCTestCase {
    private let program = "/usr/bin/certspotter"
    private var directory: URL!

    override func setUpWithError() throws {
        try TestEnvironment.require(
            FileManager.default.isExecutableFile(atPath: program), "certspotter is not installed (apt-get install certspotter)",
            skip: { XCTSkip($0) })
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pinwatch-ct-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    func testCertspotterAndPinwatchFindTheSameEntriesForAWatchedName() throws {
        let fixture = try LocalCTFixture(maximumBatch: 4)
        try fixture.logCertificate(["api.example.test"])
        try fixture.logCertificate(["unrelated.test"])
        try fixture.logPrecertificate(["www.api.example.test", "static.example.test"])
        try fixture.logCertificate(["example.test"])
        try fixture.logPrecertificate(["notapi.example.test"])
        try fixture.logCertificate(["one.api.example.test"])
        // Last and watched: once certspotter has reported it, it has read
        // every entry before it.
        try fixture.logPrecertificate(["api.example.test"])
        try fixture.log.publish()

        let found = try fixture.follower().advance(keeping: CTWatchedNames([".api.example.test"]).matches)
        XCTAssertEqual(found.entries.map(\.index), [0, 2, 5, 6])

        let run = try startCertspotter(fixture.log, watching: ".api.example.test")
        defer { run.process.stop() }
        XCTAssertTrue(
            run.process.wait(upTo: 60) { run.discoveredIndexes().contains(6) },
            "certspotter did not report entry 6: \(run.output())")
        XCTAssertEqual(run.discoveredIndexes(), Set(found.entries.map(\.index)), run.output())
    }

    func testCertspotterAndPinwatchBothRefuseABadlySignedLog() throws {
        let fixture = try LocalCTFixture()
        try fixture.logCertificate(["api.example.test"])
        try fixture.log.publish()
        fixture.log.tamper = .badSignature

        XCTAssertThrowsError(try fixture.follower().advance()) {
            XCTAssertEqual($0 as? CTLogError, .badSignature(treeSize: 1))
        }
        let run = try startCertspotter(fixture.log, watching: ".api.example.test")
        defer { run.process.stop() }
        XCTAssertTrue(
            run.process.wait(upTo: 60) { run.output().lowercased().contains("signature") },
            "certspotter did not complain of the signature: \(run.output())")
        XCTAssertEqual(run.discoveredIndexes(), [], run.output())
    }

    func testCertspotterAndPinwatchBothRefuseEntriesThatDoNotHashToTheTree() throws {
        let fixture = try LocalCTFixture()
        try fixture.logCertificate(["api.example.test"])
        try fixture.logCertificate(["www.api.example.test"])
        try fixture.log.publish()
        fixture.log.tamper = .entriesNotInTree

        XCTAssertThrowsError(try fixture.follower().advance()) {
            XCTAssertEqual($0 as? CTLogError, .entriesNotInTree(from: 0, to: 2))
        }
        let run = try startCertspotter(fixture.log, watching: ".api.example.test")
        defer { run.process.stop() }
        XCTAssertTrue(
            run.process.wait(upTo: 60) { run.output().lowercased().contains("root hash") || run.output().contains("does not match") },
            "certspotter did not refuse the entries: \(run.output())")
    }

    private struct Run {
        let process: ServerProcess
        let outputFile: URL
        let discoveries: URL

        func output() -> String { (try? String(contentsOf: outputFile, encoding: .utf8)) ?? "" }

        /// The entry indexes certspotter's script was told about.
        func discoveredIndexes() -> Set<UInt64> {
            let text = (try? String(contentsOf: discoveries, encoding: .utf8)) ?? ""
            return Set(text.split(separator: "\n").compactMap { UInt64($0) })
        }
    }

    private func startCertspotter(_ log: LocalCTLog, watching name: String) throws -> Run {
        let list = directory.appendingPathComponent("logs.json")
        try Data(try log.logList()).write(to: list)
        let watchlist = directory.appendingPathComponent("watchlist")
        try (name + "\n").write(to: watchlist, atomically: true, encoding: .utf8)
        let discoveries = directory.appendingPathComponent("discoveries")
        let script = directory.appendingPathComponent("on-discovery")
        try "#!/bin/sh\n[ \"$EVENT\" = discovered_cert ] && echo \"$ENTRY_INDEX\" >> '\(discoveries.path)'\nexit 0\n".write(
            to: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        let output = directory.appendingPathComponent("certspotter.out")
        // Its configuration directory (hooks.d, email_recipients) is the
        // test's, not the account's ~/.certspotter.
        let process = try ServerProcess(
            [
                "/usr/bin/env", "CERTSPOTTER_CONFIG_DIR=\(directory.path)", program,
                "-logs", list.path, "-watchlist", watchlist.path, "-state_dir", directory.appendingPathComponent("state").path,
                "-script", script.path, "-verbose",
            ], output: output.path)
        return Run(process: process, outputFile: output, discoveries: discoveries)
    }
}
