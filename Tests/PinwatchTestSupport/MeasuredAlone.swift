import CLinux
import Dispatch
import Foundation

/// Memory figures taken in a process of their own.
///
/// The heap and the peak resident size are the whole process's. In the
/// suite's process, threads that earlier tests left behind (servers,
/// pollers, dispatch workers) allocate and free while a test measures, and
/// once moved a figure past its bound in CI; and a peak that earlier tests
/// set hides any that a test would cause. So a memory test runs its own
/// test binary with only itself selected; there the measurement runs and
/// prints its figures, and the test in the suite's process judges them.
package enum MeasuredAlone {
    /// Bytes malloc holds in use, over every arena and large mapping.
    package static func heapInUse() -> Int {
        let figures = mallinfo2()
        return Int(figures.uordblks) + Int(figures.hblkhd)
    }

    /// The figures `measure` returns, taken in a process that runs only the
    /// calling test. In that process itself this runs `measure`, prints its
    /// figures and returns nil: the calling test then returns too, and
    /// judges the figures in the process that started it.
    package static func figures(
        of testCase: Any.Type, test function: String = #function, _ measure: () throws -> [Int]
    ) throws -> [Int]? {
        if ProcessInfo.processInfo.environment[measuringVariable] != nil {
            print(figuresPrefix + (try measure()).map(String.init).joined(separator: " "))
            return nil
        }
        let method = function.prefix { $0 != "(" }
        let output = try runThisBinary(selecting: "\(String(reflecting: testCase))/\(method)")
        let line = output.split(separator: "\n").first { $0.hasPrefix(figuresPrefix) }
        guard let words = line?.dropFirst(figuresPrefix.count).split(separator: " "), !words.isEmpty else {
            throw MeasuringProcessFailed(reason: "printed no figures", output: output)
        }
        let figures = words.compactMap { Int($0) }
        guard figures.count == words.count else {
            throw MeasuringProcessFailed(reason: "printed figures that are not numbers", output: output)
        }
        return figures
    }

    private static let measuringVariable = "PINWATCH_TEST_MEASURE_ALONE"
    private static let figuresPrefix = "figures measured alone: "

    /// The output of this test binary running only the test `selected`
    /// (XCTest's `Module.Class/method`), with the measuring variable set;
    /// bounded to two minutes.
    private static func runThisBinary(selecting selected: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = [selected]
        process.environment = ProcessInfo.processInfo.environment.merging([measuringVariable: "1"]) { _, measuring in measuring }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        let ended = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in ended.signal() }
        try process.run()
        let collected = Collected()
        let reading = Thread {
            collected.data = output.fileHandleForReading.readDataToEndOfFile()
            ended.signal()
        }
        reading.start()
        // One signal for the exit, one for the end of its output.
        let deadline = DispatchTime.now() + 120
        guard ended.wait(timeout: deadline) == .success, ended.wait(timeout: deadline) == .success else {
            process.terminate()
            throw MeasuringProcessFailed(reason: "did not finish within two minutes", output: "")
        }
        let text = String(decoding: collected.data, as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw MeasuringProcessFailed(reason: "exited with \(process.terminationStatus)", output: text)
        }
        return text
    }
}

/// Written by the reading thread before it signals, read after the wait.
private final class Collected: @unchecked Sendable {
    var data = Data()
}

private struct MeasuringProcessFailed: Error, CustomStringConvertible {
    let reason: String
    let output: String
    var description: String { "the process measuring alone \(reason):\n\(output)" }
}
