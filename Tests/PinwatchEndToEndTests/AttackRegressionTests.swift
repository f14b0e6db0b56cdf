import Foundation
import PinwatchProbe
import PinwatchTestSupport
import XCTest

/// Each attack of a past attack run on pinwatch, replayed on the real binary.
final class AttackRegressionTests: LocalFleetTestCase {

    // MARK: 1. A flooding server beside healthy ones

    func testFloodingServerAndProxyCostOnlyTheirOwnDeadline() throws {
        let flood = fleet.keep(try FloodServer(mode: .tls))
        let floodingProxy = fleet.keep(try FloodServer(mode: .connectProxy))
        fleet.add(LocalFleet.Host(name: "flood.test", port: flood.port, ca: [LocalFleet.pin(fleet.root.certificate)]))
        // The only host not excluded by no_proxy goes through the flooding proxy.
        fleet.add(LocalFleet.Host(name: "tunnel.test", port: flood.port, ca: [LocalFleet.pin(fleet.root.certificate)]))
        var healthy: [String] = []
        for number in 1...20 {
            healthy.append(try fleet.addOK("ok\(number).test").name)
        }
        try fleet.writeConfig(timeout: "3s")
        let environment = [
            "https_proxy": "http://127.0.0.1:\(floodingProxy.port)",
            "no_proxy": (healthy + ["flood.test"]).joined(separator: ","),
        ]

        let started = Date()
        let outcome = try fleet.run(["snapshot", "--format", "json"], environment: environment, timeout: 60)
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let document = try SnapshotJSON.decode(outcome.stdout)
        for name in healthy {
            let host = try document.host(name)
            XCTAssertEqual(host.status, "ok", "\(name): \(host.error?.message ?? "")")
        }
        for name in ["flood.test", "tunnel.test"] {
            let host = try document.host(name)
            XCTAssertEqual(host.status, "error", name)
            XCTAssertTrue(["tls", "timeout"].contains(host.error?.kind ?? ""), "\(name): \(String(describing: host.error))")
        }
        XCTAssertTrue(try document.host("tunnel.test").proxy.detected)
        XCTAssertLessThan(elapsed, 3 + 5, "one cycle ends within the 3 s deadline plus start-up and a margin")
        XCTAssertGreaterThan(flood.acceptedConnections, 0)
        XCTAssertGreaterThan(floodingProxy.acceptedConnections, 0)
    }

    // MARK: 2. A reader that goes away

    /// The reader is gone before pinwatch writes a byte (`true` does not
    /// read; the writer starts half a second later), so every write is EPIPE.
    private func runIntoClosedPipe(_ arguments: [String]) throws -> (status: String, stderr: String) {
        let words = ([PinwatchBinary.url.path] + arguments).map(TmuxSession.quote).joined(separator: " ")
        let script = "{ sleep 0.5; \(words) 2>stderr.txt; echo \"STATUS:$?\" >&3; } 3>status.txt | true"
        let outcome = try PinwatchBinary.runShell(script, currentDirectory: fleet.directory)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let status = try String(contentsOf: fleet.directory.appendingPathComponent("status.txt"), encoding: .utf8)
        let stderr = try String(contentsOf: fleet.directory.appendingPathComponent("stderr.txt"), encoding: .utf8)
        return (status.trimmingCharacters(in: .whitespacesAndNewlines), stderr)
    }

    func testClosedPipeEndsEveryCommandQuietly() throws {
        let ok = try fleet.addOK("ok.test")
        for number in 1...59 {
            try fleet.addOK("more\(number).test")
        }
        try fleet.writeConfig(timeout: "5s")
        let certificate = try fleet.write(try XCTUnwrap(ok.leafCertificate).pem, to: "leaf.pem")
        let commands: [[String]] = [
            ["snapshot", "--format", "json"],
            ["snapshot", "--format", "text"],
            ["check"],
            ["inspect", "ok.test:\(ok.port)", "--connect", "127.0.0.1", "--trust", fleet.trustURL.path],
            ["pin", certificate.path],
        ]
        for command in commands {
            let (status, stderr) = try runIntoClosedPipe(command)
            XCTAssertTrue(["STATUS:0", "STATUS:141"].contains(status), "\(command): \(status) \(stderr)")
            XCTAssertEqual(stderr, "", "\(command) says nothing when its reader has gone")
        }
    }

    func testHeadOfALargeSnapshotIsQuiet() throws {
        for number in 1...60 {
            try fleet.addOK("big\(number).test")
        }
        try fleet.writeConfig(timeout: "5s")
        let words = [PinwatchBinary.url.path, "snapshot", "--format", "json"].map(TmuxSession.quote).joined(separator: " ")
        let outcome = try PinwatchBinary.runShell(
            "\(words) 2>stderr.txt | head -1; echo \"STATUS:${PIPESTATUS[0]}\"", currentDirectory: fleet.directory)
        XCTAssertTrue(outcome.stdout.hasPrefix("{\n"), outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("STATUS:0") || outcome.stdout.contains("STATUS:141"), outcome.stdout)
        let stderr = try String(contentsOf: fleet.directory.appendingPathComponent("stderr.txt"), encoding: .utf8)
        XCTAssertEqual(stderr, "")
    }

    // MARK: 3. Numbers past any sane bound

    func testHugeIntervalIsAConfigurationError() throws {
        try fleet.addOK("ok.test")
        for interval in ["5124096h", String(repeating: "9", count: 400), "1ms", "2s"] {
            try fleet.writeConfig(settings: ["interval: \(interval)"], timeout: "3s")
            let outcome = try fleet.run(["snapshot"])
            XCTAssertEqual(outcome.status, 2, "interval \(interval.prefix(20)): \(outcome.stderr)")
            XCTAssertTrue(outcome.stderr.contains("interval") || outcome.stderr.contains("timeout"), outcome.stderr)
            XCTAssertLessThan(outcome.stderr.count, 400, "the 400 nines are not echoed in full")
        }
        let watch = try fleet.run(["watch", "--interval", "5124096h"])
        XCTAssertEqual(watch.status, 2, watch.stderr)
        XCTAssertTrue(watch.stderr.contains("out of range"), watch.stderr)
    }

    // MARK: 4. Credentials in a proxy variable

    func testPasswordInAProxyWithoutHostIsNeverPrinted() throws {
        let ok = try fleet.addOK("ok.test")
        try fleet.writeConfig()
        let environment = ["https_proxy": "http://user:S3cr3tPW"]
        var outputs: [String] = []
        for command in [
            ["snapshot", "--format", "json"], ["snapshot", "--format", "text"], ["check"],
            ["inspect", "ok.test:\(ok.port)", "--connect", "127.0.0.1", "--format", "json"],
        ] {
            let outcome = try fleet.run(command, environment: environment)
            outputs.append(outcome.stdout + outcome.stderr)
        }
        try fleet.writeConfig(settings: ["proxy: http://user:S3cr3tPW"], name: "proxied.yaml")
        let configError = try fleet.run(["snapshot", "--config", "proxied.yaml"])
        XCTAssertEqual(configError.status, 2)
        outputs.append(configError.stdout + configError.stderr)
        XCTAssertTrue(configError.stderr.contains("http://***"), configError.stderr)
        for output in outputs {
            XCTAssertFalse(output.contains("S3cr3tPW"), output)
        }
        XCTAssertTrue(outputs[0].contains("\"proxy\""), "the host still gets the proxy error: \(outputs[0])")
    }

    // MARK: 5. Billion laughs

    func testAliasBombIsRefusedAtOnce() throws {
        var lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
        for level in 1...8 {
            let previous = "*a\(level - 1)"
            lines.append("a\(level): &a\(level) [\(Array(repeating: previous, count: 10).joined(separator: ", "))]")
        }
        lines.append("y: {*a8 : v}")
        try fleet.write(lines.joined(separator: "\n") + "\n", to: "bomb.yaml")
        let started = Date()
        let outcome = try fleet.run(["snapshot", "--config", "bomb.yaml"], timeout: 20)
        XCTAssertLessThan(Date().timeIntervalSince(started), 10, "refused before any expansion")
        XCTAssertEqual(outcome.status, 2, outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("bomb.yaml:1:"), outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("anchors"), outcome.stderr)
    }

    // MARK: 6. Special files

    func testFIFOAndCertificateLessFilesAreRefusedWithoutHanging() throws {
        let fifo = fleet.directory.appendingPathComponent("pipe.pem")
        XCTAssertEqual(mkfifo(fifo.path, 0o600), 0)
        try fleet.write("just some text\n", to: "notes.txt")
        try fleet.addOK("ok.test")
        let cases: [(settings: [String], expected: String)] = [
            (["hosts:", "  - host: a.test", "    pins: {ca: [\"file:pipe.pem\"]}"], "FIFO"),
            (["trust: pipe.pem", "hosts: []"], "FIFO"),
            (["trust: notes.txt", "hosts: []"], "notes.txt"),
            (["hosts:", "  - host: a.test", "    pins: {ca: [\"file:.\"]}"], "a directory"),
        ]
        for (index, (settings, expected)) in cases.enumerated() {
            try fleet.write((["timeout: 3s"] + settings).joined(separator: "\n") + "\n", to: "special\(index).yaml")
            let outcome = try fleet.run(["snapshot", "--config", "special\(index).yaml"], timeout: 15)
            XCTAssertEqual(outcome.status, 2, "\(settings): \(outcome.stderr)")
            XCTAssertTrue(outcome.stderr.contains(expected), "\(settings): \(outcome.stderr)")
            XCTAssertFalse(
                outcome.stderr.contains("NSCocoaErrorDomain") || outcome.stderr.contains("The operation could not"), outcome.stderr)
        }
        let inspect = try fleet.run(["inspect", "127.0.0.1:1", "--trust", fifo.path], timeout: 15)
        XCTAssertEqual(inspect.status, 2, inspect.stderr)
        XCTAssertTrue(inspect.stderr.contains("FIFO"), inspect.stderr)
    }

    // MARK: 7. NUL and other control characters in names

    func testControlCharactersInHostSNIAndConnectAreRefused() throws {
        let ok = try fleet.addOK("good.test")
        let entries = [
            "  - host: \"good.test\\0.attacker.example\"\n    port: \(ok.port)\n    connect: 127.0.0.1",
            "  - host: good.test\n    port: \(ok.port)\n    sni: \"good.test\\x01\"\n    connect: 127.0.0.1",
            "  - host: good.test\n    port: \(ok.port)\n    connect: \"127.0.0.1\\e[31m\"",
        ]
        for (index, entry) in entries.enumerated() {
            try fleet.write("trust: trust.pem\nhosts:\n\(entry)\n", to: "names\(index).yaml")
            let outcome = try fleet.run(["snapshot", "--format", "json", "--config", "names\(index).yaml"])
            XCTAssertEqual(outcome.status, 2, "\(entry): \(outcome.stdout)")
            XCTAssertTrue(outcome.stderr.contains("control character"), outcome.stderr)
            XCTAssertFalse(outcome.stderr.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "the error itself is clean")
        }
    }

    // MARK: 9. What error messages repeat

    func testLatin1ConfigHugePinAndDirectoryPinHaveClearMessages() throws {
        var latin1 = Array("timeout: 3s\n# caf".utf8)
        latin1.append(0xE9)
        latin1 += Array("\nhosts: []\n".utf8)
        try fleet.write(latin1, to: "latin1.yaml")
        let encoding = try fleet.run(["snapshot", "--config", "latin1.yaml"])
        XCTAssertEqual(encoding.status, 2)
        XCTAssertTrue(encoding.stderr.contains("latin1.yaml:2: not UTF-8"), encoding.stderr)

        let hugePin = "sha256/" + String(repeating: "A", count: 3_000_000)
        try fleet.write("hosts:\n  - host: a.test\n    pins: {ca: [\"\(hugePin)\"]}\n", to: "huge.yaml")
        let huge = try fleet.run(["snapshot", "--config", "huge.yaml"])
        XCTAssertEqual(huge.status, 2)
        XCTAssertLessThan(huge.stderr.count, 500, "the pin is shortened in the message")
        XCTAssertTrue(huge.stderr.contains("…"), huge.stderr)
    }
}
