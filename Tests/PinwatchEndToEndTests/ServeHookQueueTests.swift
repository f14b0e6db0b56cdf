import Foundation
import PinwatchTestSupport
import XCTest

/// `pinwatch serve`'s hooks under reloads (DESIGN §15): one cap of four for
/// the process, however many reloads, and what never ran said at exit.
final class ServeHookQueueTests: LocalFleetTestCase {
    private var serve: BackgroundProcess?

    override func tearDown() {
        serve?.stop()
        serve = nil
        super.tearDown()
    }

    func testAReloadKeepsTheCapOfFourHooksAtOnce() throws {
        for number in 1...4 { try fleet.addLeafOnly("first\(number).test") }
        let out = fleet.directory.appendingPathComponent("hook-out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        // Each run counts the runs under way, itself included.
        let hook = try fleet.write(
            """
            #!/bin/sh
            mkdir "$1/running.$$"
            ls -d "$1"/running.* | wc -l >> "$1/concurrency"
            sleep 3
            rmdir "$1/running.$$"

            """, to: "hook.sh")
        let settings = ["interval: 1s", "hooks:", "  - [/bin/sh, \(hook.path), \(out.path)]"]
        try fleet.writeConfig(settings: settings, timeout: "1s")
        let process = try launchServe()
        serve = process
        let counts = { () -> [Int] in
            let text = (try? String(contentsOf: out.appendingPathComponent("concurrency"), encoding: .utf8)) ?? ""
            return text.split(separator: "\n").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        }
        try waitUntil(timeout: 20, "the first four hooks never ran: \(process.stderr)") { counts().count == 4 }

        // Four new hosts, four new events, while the first four still run.
        for number in 1...4 { try fleet.addLeafOnly("second\(number).test") }
        try fleet.writeConfig(settings: settings, timeout: "1s")
        process.signal(SIGHUP)
        try waitUntil(timeout: 20, "the second four hooks never ran: \(process.stderr)") { counts().count == 8 }
        XCTAssertLessThanOrEqual(counts().max() ?? 0, 4, "hooks at once: \(counts())")

        process.signal(SIGTERM)
        XCTAssertNotNil(process.waitForExit(timeout: 5))
        let stopping = process.stderr.split(separator: "\n").first { $0.contains("msg=stopping") } ?? ""
        XCTAssertTrue(stopping.contains("hooks_dropped=0"), process.stderr)
    }
}
