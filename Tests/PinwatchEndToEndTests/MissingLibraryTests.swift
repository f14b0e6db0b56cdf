import Foundation
import PinwatchTestSupport
import XCTest

/// libxml2 is opened on first use (CLazyLibrary), under the soname libxml2
/// 2.14 introduced or the one before it, so a machine without it still runs
/// every command but the Android import, which says which package is
/// missing. (SQLite and ncursesw are linked: the package depends on them.)
/// The library is hidden in a mount namespace of the test's own (an empty
/// file bound over it), which needs root and `unshare`; the namespace ends
/// with the command.
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
        try
            "<network-security-config><domain-config><domain>a.test</domain><pin-set><pin digest=\"SHA-256\">C5+lpZ7tcVwmwQIMcRtPbsQtWLABXhQzejna0wHFr8M=</pin></pin-set></domain-config></network-security-config>\n"
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

    func testWithoutLibXML2AnAndroidConfigIsAnErrorThatNamesThePackage() throws {
        let imported = try runWithout("libxml2.so.2", "$PINWATCH import nsc.xml")
        XCTAssertEqual(imported.status, 2, imported.stdout + imported.stderr)
        XCTAssertTrue(imported.stderr.contains("cannot load libxml2.so.16 or libxml2.so.2"), imported.stderr)
        XCTAssertTrue(imported.stderr.contains("install libxml2"), imported.stderr)

        let validated = try runWithout("libxml2.so.2", "$PINWATCH validate --config pinwatch.yaml")
        XCTAssertEqual(validated.status, 0, "a command that reads no Android config runs: \(validated.stderr)")
    }

    /// libxml2 2.14 and later are libxml2.so.16: with only that name on the
    /// library path (a copy of this machine's libxml2, its .so.2 hidden), the
    /// import reads the file.
    func testLibXML2UnderItsNewSonameIsFound() throws {
        let copy = try PinwatchBinary.runShell(
            """
            set -e
            library=$(ldconfig -p | awk '$1 == "libxml2.so.2" && /x86-64|aarch64/ { print $NF; exit }')
            mkdir -p '\(folder.path)/lib'
            cp "$(readlink -f "$library")" '\(folder.path)/lib/libxml2.so.16'
            """)
        XCTAssertEqual(copy.status, 0, copy.stderr)
        let imported = try runWithout("libxml2.so.2", "LD_LIBRARY_PATH=\"$PWD/lib\" $PINWATCH import nsc.xml")
        XCTAssertEqual(imported.status, 0, imported.stdout + imported.stderr)
        XCTAssertTrue(imported.stdout.contains("sha256/C5+lpZ7tcVwmwQIMcRtPbsQtWLABXhQzejna0wHFr8M="), imported.stdout)
    }
}
