import PinwatchTestSupport
import XCTest

/// The one rule for tests that need a tool or a privilege: skip on a
/// developer's machine, fail under `PINWATCH_CI=1`, so CI never skips one
/// (the promtool checks of the exposition, say) without anyone seeing it.
final class TestEnvironmentTests: XCTestCase {
    private struct Skipped: Error {
        let reason: String
    }

    func testAMissingPieceSkipsOutsideCI() {
        XCTAssertThrowsError(
            try TestEnvironment.require(false, "promtool is not installed", environment: [:], skip: { Skipped(reason: $0) })
        ) { error in
            XCTAssertEqual((error as? Skipped)?.reason, "promtool is not installed")
        }
    }

    func testAMissingPieceFailsUnderPinwatchCI() {
        XCTAssertThrowsError(
            try TestEnvironment.require(
                false, "promtool is not installed", environment: ["PINWATCH_CI": "1"], skip: { Skipped(reason: $0) })
        ) { error in
            XCTAssertFalse(error is Skipped, "a skip in CI")
            XCTAssertTrue("\(error)".contains("promtool is not installed"), "\(error)")
        }
    }

    func testAnAvailablePieceNeitherSkipsNorFails() throws {
        try TestEnvironment.require(true, "unused", environment: ["PINWATCH_CI": "1"], skip: { Skipped(reason: $0) })
        try TestEnvironment.require(true, "unused", environment: [:], skip: { Skipped(reason: $0) })
    }

    /// `.ci/run` sets the variable before it runs the tests.
    func testCISetsPinwatchCIBeforeRunningTheTests() throws {
        let script = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../.ci/run"),
            encoding: .utf8)
        let exported = try XCTUnwrap(script.range(of: "\nexport PINWATCH_CI=1\n"), "export PINWATCH_CI=1 in .ci/run")
        let tests = try XCTUnwrap(script.range(of: "\nswift test "), "swift test in .ci/run")
        XCTAssertLessThan(exported.lowerBound, tests.lowerBound)
    }
}
