import Foundation
import XCTest

/// Runs the built `pinwatch` executable as a user would, with a bounded wait.
struct PinwatchBinary {
    typealias Outcome = SpawnedCommand.Outcome

    /// `swift build` and `swift test` put the executable beside the test bundle.
    ///
    /// On Linux the bundle URL is already the build folder (the `.xctest`
    /// is a plain executable there); on macOS it is the `.xctest` folder.
    static var url: URL {
        let bundle = Bundle(for: Marker.self).bundleURL
        let folder = bundle.pathExtension == "xctest" ? bundle.deletingLastPathComponent() : bundle
        return folder.appendingPathComponent("pinwatch")
    }

    private final class Marker {}

    /// Runs the binary to completion; kills it (by its own PID) past `timeout`.
    @discardableResult
    static func run(
        _ arguments: [String], environment: [String: String] = [:], currentDirectory: URL? = nil,
        timeout: TimeInterval = 60, file: StaticString = #filePath, line: UInt = #line
    ) throws -> Outcome {
        try runProcess(
            url, arguments, environment: environment, currentDirectory: currentDirectory, timeout: timeout, file: file, line: line)
    }

    /// Runs a bash script (pipelines around the binary), with the same
    /// environment and bounded wait as `run`.
    @discardableResult
    static func runShell(
        _ script: String, currentDirectory: URL? = nil, timeout: TimeInterval = 60,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> Outcome {
        try runProcess(
            URL(fileURLWithPath: "/bin/bash"), ["-c", script], environment: [:], currentDirectory: currentDirectory,
            timeout: timeout, file: file, line: line)
    }

    private static func runProcess(
        _ executable: URL, _ arguments: [String], environment: [String: String], currentDirectory: URL?,
        timeout: TimeInterval, file: StaticString, line: UInt
    ) throws -> Outcome {
        let (childEnvironment, stateHome) = SpawnedCommand.pinwatchEnvironment(environment)
        defer { IsolatedStateHome.remove(stateHome) }
        let outcome = try SpawnedCommand.run(
            executable.path, arguments, environment: childEnvironment, currentDirectory: currentDirectory, timeout: timeout)
        if outcome.timedOut {
            XCTFail("pinwatch \(arguments.joined(separator: " ")) did not finish within \(timeout) s", file: file, line: line)
        }
        return outcome
    }
}
