import Foundation

/// What a test needs from the machine and may not find there: a tool
/// (promtool, amtool, python3-jsonschema), root, `unshare`, a system file.
///
/// On a developer's machine a missing piece skips the test. With
/// `PINWATCH_CI=1` (set by `.ci/run`, which installs every piece) it fails
/// the test instead, so no check can be skipped in CI without anyone
/// seeing it.
package enum TestEnvironment {
    package struct Missing: Error, CustomStringConvertible {
        package let description: String
    }

    package static func isCI(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        environment["PINWATCH_CI"] == "1"
    }

    /// Returns when `available`; else throws `skip(reason)` (the caller's
    /// `XCTSkip`), or `Missing` under `PINWATCH_CI=1`.
    package static func require(
        _ available: Bool, _ reason: @autoclosure () -> String,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        skip: (String) -> any Error
    ) throws {
        guard !available else { return }
        guard isCI(environment) else { throw skip(reason()) }
        throw Missing(description: "PINWATCH_CI=1 and the test cannot run: \(reason())")
    }
}
