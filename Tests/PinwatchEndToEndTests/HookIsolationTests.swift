import Foundation
import PinwatchTestSupport
import XCTest

/// A hook started by `pinwatch serve` owns nothing of the exporter's
/// (DESIGN §15): no descriptor past 0/1/2, no blocked or ignored signal, and a
/// timeout ends it together with everything it started.
final class HookIsolationTests: LocalFleetTestCase {
    private var serve: BackgroundProcess?
    /// Where the hook lists the children it leaves, killed here if the
    /// test failed.
    private var children: URL?

    override func tearDown() {
        serve?.stop()
        serve = nil
        let pids = children.flatMap { try? String(contentsOf: $0, encoding: .utf8) } ?? ""
        for pid in pids.split(separator: "\n").compactMap({ pid_t($0) }) where Self.isAlive(pid) { kill(pid, SIGKILL) }
        super.tearDown()
    }

    func testAHookGetsOnlyItsStandardDescriptorsACleanSignalStateAndDiesWithItsChildren() throws {
        try fleet.addLeafOnly("stale.test")
        let out = fleet.directory.appendingPathComponent("hook-out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        children = out.appendingPathComponent("children")
        // Each file appears whole (mv), so a poll never reads half of one.
        let hook = try fleet.write(
            """
            #!/bin/sh
            # A subshell, so the shell redirects nothing of its own while ls
            # looks; builtins only for the shell's own signal state.
            (ls -l /proc/$$/fd) > "$1/fds.tmp" && mv "$1/fds.tmp" "$1/fds"
            while read -r name value; do
                case $name in SigBlk:|SigIgn:) echo "$name $value" ;; esac
            done < /proc/$$/status > "$1/signals.tmp" && mv "$1/signals.tmp" "$1/signals"
            sleep 60 &
            echo $! > "$1/child.tmp" && mv "$1/child.tmp" "$1/child"
            echo $! >> "$1/children"
            wait

            """, to: "hook.sh")
        try fleet.writeConfig(
            settings: ["interval: 1s", "hooks:", "  - {command: [/bin/sh, \(hook.path), \(out.path)], timeout: 1s}"],
            timeout: "1s")
        let process = try launchServe()
        serve = process

        let childFile = out.appendingPathComponent("child")
        try waitUntil(timeout: 20, "the hook never ran: \(process.stderr)") {
            FileManager.default.fileExists(atPath: childFile.path)
        }
        let child = try XCTUnwrap(pid_t(String(contentsOf: childFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))

        // dash keeps the script it reads open on a descriptor of its own.
        let listing = try String(contentsOf: out.appendingPathComponent("fds"), encoding: .utf8)
        let descriptors = listing.split(separator: "\n").compactMap { line -> String? in
            guard let arrow = line.range(of: " -> ") else { return nil }
            let target = line[arrow.upperBound...]
            let number = line[..<arrow.lowerBound].split(separator: " ").last.map(String.init)
            return target == hook.path ? nil : number
        }
        XCTAssertEqual(descriptors.sorted(), ["0", "1", "2"], listing)

        let signals = try String(contentsOf: out.appendingPathComponent("signals"), encoding: .utf8)
        let masks = Dictionary(
            uniqueKeysWithValues: signals.split(separator: "\n").map { line in
                let fields = line.split(separator: " ")
                return (String(fields[0]), UInt64(fields[1], radix: 16) ?? .max)
            })
        XCTAssertEqual(masks["SigBlk:"], 0, signals)
        // Signals 1–31; glibc's posix_spawn itself leaves its two internal
        // real-time signals (32, 33) ignored, which no program relies on.
        XCTAssertEqual(masks["SigIgn:"].map { $0 & 0x7fff_ffff }, 0, signals)

        try waitUntil(timeout: 10, "the hook was not timed out: \(process.stderr)") {
            process.stderr.contains("killed after its 1s timeout")
        }
        try waitUntil(timeout: 5, "the hook's background child outlived its timeout") { !Self.isAlive(child) }
    }

    /// The README promises hooks never get proxy details: a hook sees the
    /// minimal environment and the names its `env:` allows, nothing else.
    func testAHookGetsTheMinimalEnvironmentAndWhatItsEnvAllows() throws {
        try fleet.addLeafOnly("stale.test")
        let dump = fleet.directory.appendingPathComponent("environment")
        try fleet.writeConfig(
            settings: [
                "interval: 1s", "proxy: off", "hooks:",
                "  - {command: [/bin/sh, -c, 'env > \"$0.tmp\" && mv \"$0.tmp\" \"$0\"', \(dump.path)], env: [SLACK_TOKEN]}",
            ],
            timeout: "1s")
        serve = try launchServe(
            environment: [
                "https_proxy": "http://user:hunter2@127.0.0.1:3128", "DATABASE_PASSWORD": "hunter3", "SLACK_TOKEN": "allowed",
                "PINWATCH_WEBHOOK_URL": "https://hooks.example/x", "LC_TIME": "C.UTF-8", "TZ": "UTC",
            ])
        try waitUntil(timeout: 20, "the hook never ran: \(serve?.stderr ?? "")") { FileManager.default.fileExists(atPath: dump.path) }
        let variables = Dictionary(
            try String(contentsOf: dump, encoding: .utf8).split(separator: "\n").compactMap { line -> (String, String)? in
                guard let equals = line.firstIndex(of: "=") else { return nil }
                return (String(line[..<equals]), String(line[line.index(after: equals)...]))
            }, uniquingKeysWith: { first, _ in first })
        XCTAssertNil(variables["https_proxy"])
        XCTAssertNil(variables["DATABASE_PASSWORD"])
        XCTAssertEqual(variables["SLACK_TOKEN"], "allowed")
        XCTAssertEqual(variables["PINWATCH_WEBHOOK_URL"], "https://hooks.example/x")
        XCTAssertEqual(variables["LC_TIME"], "C.UTF-8")
        XCTAssertEqual(variables["TZ"], "UTC")
        XCTAssertNotNil(variables["PATH"])
        // What the shell adds itself (PWD, SHLVL, _) is all that may be left.
        let expected: Set = ["SLACK_TOKEN", "PINWATCH_WEBHOOK_URL", "LC_TIME", "TZ", "PATH", "HOME", "LANG", "PWD", "SHLVL", "_"]
        let unexpected = Set(variables.keys).subtracting(expected).filter { !$0.hasPrefix("LC_") && !$0.hasPrefix("PINWATCH_") }
        XCTAssertEqual(unexpected, [], "\(variables.keys.sorted())")
    }

    /// Gone, or a zombie nobody has reaped yet (it holds nothing).
    private static func isAlive(_ pid: pid_t) -> Bool {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return false }
        return !status.contains("State:\tZ")
    }
}
