import Foundation
import XCTest

/// Runs the built `pinwatch` executable as a user would, with a bounded wait.
struct PinwatchBinary {
    struct Outcome {
        var status: Int32
        var stdout: String
        var stderr: String
    }

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
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for key in ["https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "http_proxy", "HTTP_PROXY", "NO_COLOR"] {
            env.removeValue(forKey: key)
        }
        env["LANG"] = "C.UTF-8"
        env.removeValue(forKey: "XDG_STATE_HOME")
        env.merge(environment) { _, new in new }
        let stateHome = IsolatedStateHome.apply(to: &env)
        defer { IsolatedStateHome.remove(stateHome) }
        process.environment = env
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        let stdoutPipe = Pipe()
        let stderrPipe = Pipe()
        process.standardOutput = stdoutPipe
        process.standardError = stderrPipe
        process.standardInput = FileHandle.nullDevice

        // Drain both pipes while the process runs so a large output cannot
        // block it on a full pipe.
        let collected = OutputCollector()
        let group = DispatchGroup()
        for (pipe, isStdout) in [(stdoutPipe, true), (stderrPipe, false)] {
            group.enter()
            DispatchQueue.global().async {
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                collected.store(data, isStdout: isStdout)
                group.leave()
            }
        }
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline {
            usleep(20_000)
        }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            XCTFail("pinwatch \(arguments.joined(separator: " ")) did not finish within \(timeout) s", file: file, line: line)
        }
        process.waitUntilExit()
        _ = group.wait(timeout: .now() + 10)
        return Outcome(status: process.terminationStatus, stdout: collected.stdout, stderr: collected.stderr)
    }
}

private final class OutputCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var out = Data()
    private var err = Data()

    func store(_ data: Data, isStdout: Bool) {
        lock.lock()
        defer { lock.unlock() }
        if isStdout { out = data } else { err = data }
    }

    var stdout: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: out, as: UTF8.self)
    }

    var stderr: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: err, as: UTF8.self)
    }
}
