import Foundation
import PinwatchTestSupport
import XCTest

/// SQLite, ncursesw and libxml2 are opened on first use (CLazyLibrary), so
/// a machine without one of them still runs every command that does not
/// need it, and the one that does says which package is missing instead of
/// the loader refusing to start the binary. Each library is hidden in a
/// mount namespace of the test's own (an empty file bound over it), which
/// needs root and `unshare`; the namespace ends with the command.
final class MissingLibraryTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        try TestEnvironment.require(getuid() == 0, "hiding a library needs root (a private mount namespace)", skip: { XCTSkip($0) })
        let probe = try PinwatchBinary.runShell("unshare --mount true")
        try TestEnvironment.require(probe.status == 0, "unshare --mount is not available: \(probe.stderr)", skip: { XCTSkip($0) })
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("pinwatch-missing-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: folder.appendingPathComponent("empty").path, contents: Data())
        // A host nothing listens on: no command below gets as far as probing it.
        try "hosts:\n  - host: 127.0.0.1\n    port: 9\n".write(
            to: folder.appendingPathComponent("pinwatch.yaml"), atomically: true, encoding: .utf8)
        try "<network-security-config><domain-config><domain>a.test</domain></domain-config></network-security-config>\n"
            .write(to: folder.appendingPathComponent("nsc.xml"), atomically: true, encoding: .utf8)
    }

    override func tearDownWithError() throws {
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }

    /// Runs the shell command `inner` (with `$PINWATCH` the binary, in the
    /// test's folder) while `library`, a soname the loader cache knows, is
    /// an empty file.
    private func runWithout(_ library: String, _ inner: String) throws -> PinwatchBinary.Outcome {
        let script = """
            set -e
            library=$(ldconfig -p | awk '$1 == "\(library)" && /x86-64|aarch64/ { print $NF; exit }')
            test -n "$library" || { echo "no \(library) in the loader cache" >&2; exit 99; }
            cd '\(folder.path)'
            export PINWATCH='\(PinwatchBinary.url.path)'
            exec unshare --mount sh -c 'mount --bind empty "$1" && eval "$2"' sh "$(readlink -f "$library")" '\(inner)'
            """
        let outcome = try PinwatchBinary.runShell(script)
        XCTAssertNotEqual(outcome.status, 99, outcome.stderr)
        return outcome
    }

    func testWithoutSQLiteAHistoryStoreIsAnErrorThatNamesThePackage() throws {
        let check = try runWithout("libsqlite3.so.0", "$PINWATCH check --config pinwatch.yaml --state state.sqlite")
        XCTAssertEqual(check.status, 3, check.stdout + check.stderr)
        XCTAssertTrue(check.stdout.hasPrefix("PINWATCH UNKNOWN - "), check.stdout)
        XCTAssertTrue(check.stdout.contains("cannot load libsqlite3.so.0"), check.stdout)
        XCTAssertTrue(check.stdout.contains("install libsqlite3-0"), check.stdout)

        let withoutHistory = try runWithout("libsqlite3.so.0", "$PINWATCH validate --config pinwatch.yaml")
        XCTAssertEqual(withoutHistory.status, 0, "a command that keeps no history runs: \(withoutHistory.stderr)")
    }

    func testWithoutLibXML2AnAndroidConfigIsAnErrorThatNamesThePackage() throws {
        let imported = try runWithout("libxml2.so.2", "$PINWATCH import nsc.xml")
        XCTAssertEqual(imported.status, 2, imported.stdout + imported.stderr)
        XCTAssertTrue(imported.stderr.contains("cannot load libxml2.so.2"), imported.stderr)
        XCTAssertTrue(imported.stderr.contains("install libxml2"), imported.stderr)
    }

    func testWithoutNcursesTheDashboardSaysSoAndOneShotCommandsRun() throws {
        // `script` gives the dashboard the terminal it asks for first.
        let dashboard = try runWithout(
            "libncursesw.so.6", "script -qec \"$PINWATCH watch --config pinwatch.yaml --state off\" /dev/null")
        XCTAssertEqual(dashboard.status, 2, dashboard.stdout + dashboard.stderr)
        XCTAssertTrue(dashboard.stdout.contains("cannot load libncursesw.so.6"), dashboard.stdout + dashboard.stderr)
        XCTAssertTrue(dashboard.stdout.contains("install libncursesw6"), dashboard.stdout)

        let snapshot = try runWithout("libncursesw.so.6", "$PINWATCH snapshot --format text --config pinwatch.yaml --state off --width 80")
        XCTAssertEqual(snapshot.status, 0, snapshot.stderr)
        XCTAssertTrue(snapshot.stdout.contains("127.0.0.1:9"), snapshot.stdout)
    }
}
