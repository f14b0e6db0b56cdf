import Foundation
import PinwatchCore
import PinwatchLocalWorld
import PinwatchProbe
import PinwatchTestSupport
import XCTest

/// contrib/certspotter-pinwatch run by Debian's certspotter against a local
/// log: each discovery's chain goes to the real binary's `preflight`, whose
/// verdict names the release the logged chain breaks, before any server
/// sends it.
final class CertspotterHookEndToEndTests: LocalFleetTestCase {
    private let certspotter = "/usr/bin/certspotter"

    private static var hook: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("contrib/certspotter-pinwatch")
    }

    func testEachDiscoveryIsJudgedByPreflight() throws {
        try TestEnvironment.require(
            FileManager.default.isExecutableFile(atPath: certspotter), "certspotter is not installed (apt-get install certspotter)",
            skip: { XCTSkip($0) })
        let pinned = try fleet.root.issueIntermediate(commonName: "Hook Pinned CA")
        let sibling = try fleet.root.issueIntermediate(commonName: "Hook Sibling CA")
        fleet.add(LocalFleet.Host(name: "api.test", port: try LocalPorts.closedPort(), ca: [LocalFleet.pin(fleet.root.certificate)]))
        let backup = String(try LocalFleet.unrelatedPin().dropFirst("sha256/".count))
        let pin = String(LocalFleet.pin(pinned.certificate).dropFirst("sha256/".count))
        try fleet.write(#"{"TSKPinnedDomains": {"api.test": {"TSKPublicKeyHashes": ["\#(pin)", "\#(backup)"]}}}"#, to: "app.json")
        let config = try fleet.writeConfig(settings: ["clients:", "  - name: app 1.9", "    trustkit: app.json"])

        let log = try LocalCTLog(roots: [fleet.root.certificate])
        defer { log.stop() }
        let precertificate = try sibling.issueLeaf(commonName: "api.test", dnsNames: ["api.test"], precertificate: true)
        try log.add(
            precertificate: precertificate.certificate, issuer: sibling.certificate, chain: [sibling.certificate, fleet.root.certificate])
        let certificate = try pinned.issueLeaf(commonName: "api.test", dnsNames: ["api.test"])
        log.add(certificate: certificate.certificate, chain: [pinned.certificate, fleet.root.certificate])
        try log.publish()

        let directory = fleet.directory.appendingPathComponent("certspotter")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let list = try fleet.write(try log.logList(), to: "certspotter/logs.json")
        let watchlist = try fleet.write("api.test\n", to: "certspotter/watchlist")
        let verdicts = directory.appendingPathComponent("verdicts")
        // Its configuration directory is the test's, not the account's ~/.certspotter.
        let process = try ServerProcess(
            [
                "/usr/bin/env", "CERTSPOTTER_CONFIG_DIR=\(directory.path)", "PINWATCH=\(PinwatchBinary.url.path)",
                "PINWATCH_CONFIG=\(config.path)", "PINWATCH_PREFLIGHT_LOG=\(verdicts.path)", certspotter, "-logs", list.path,
                "-watchlist", watchlist.path, "-state_dir", directory.appendingPathComponent("state").path, "-script",
                Self.hook.path, "-verbose",
            ], output: directory.appendingPathComponent("certspotter.out").path)
        defer { process.stop() }
        let read = { (try? String(contentsOf: verdicts, encoding: .utf8)) ?? "" }
        let lines = { read().split(separator: "\n").filter { $0.hasPrefix("certspotter-pinwatch: ") } }
        XCTAssertTrue(
            process.wait(upTo: 90) { lines().count >= 2 },
            "two verdicts: \(read())\n\((try? String(contentsOfFile: directory.appendingPathComponent("certspotter.out").path)) ?? "")")
        let byEntry = Dictionary(
            uniqueKeysWithValues: lines().map { line in
                (line.contains(" entry 0 of ") ? 0 : 1, String(line))
            })
        XCTAssertTrue(byEntry[0]?.contains("api.test entry 0 of http://127.0.0.1:\(log.port)/") ?? false, read())
        XCTAssertTrue(byEntry[0]?.hasSuffix("preflight 2 (breaks)") ?? false, "the sibling's precertificate: \(read())")
        XCTAssertTrue(byEntry[1]?.hasSuffix("preflight 0 (accepted)") ?? false, "the pinned intermediate's certificate: \(read())")
        XCTAssertTrue(read().contains("BREAKS app 1.9"), read())
        XCTAssertTrue(read().contains("CN=Hook Sibling CA"), read())
    }
}
