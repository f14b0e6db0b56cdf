import Foundation
import XCTest

/// A rendered output compared byte for byte with its committed file in
/// `Tests/Golden/`. The files are found from this source file's path, not
/// as bundle resources, so a clean clone tests them without a build step.
///
/// `PINWATCH_GOLDEN_UPDATE=1` (what `scripts/golden` sets) rewrites the
/// files instead; refused under CI, where an update would make any change
/// pass unseen.
enum GoldenFile {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Golden")

    static let regenerate =
        "scripts/golden (or PINWATCH_GOLDEN_UPDATE=1 swift test --filter PinwatchUITests.Golden), then review git diff Tests/Golden"

    private static var updating: Bool {
        let environment = ProcessInfo.processInfo.environment
        return ["1", "true", "yes"].contains(environment["PINWATCH_GOLDEN_UPDATE"]?.lowercased() ?? "")
    }

    private static var underCI: Bool {
        let environment = ProcessInfo.processInfo.environment
        return environment["CI"]?.lowercased() == "true" || environment["PINWATCH_CI"] == "1"
    }

    /// Fails, naming the file, the first line that differs (both versions,
    /// control characters spelled out) and how to regenerate, unless
    /// `actual` is the file's content exactly.
    static func assert(_ actual: String, matches name: String, file: StaticString = #filePath, line: UInt = #line) {
        let url = directory.appendingPathComponent(name)
        let path = "Tests/Golden/\(name)"
        if updating {
            guard !underCI else {
                return XCTFail(
                    "PINWATCH_GOLDEN_UPDATE is set under CI: golden files are only rewritten on a developer's machine, where the diff is reviewed",
                    file: file, line: line)
            }
            let current = try? Data(contentsOf: url)
            guard current != Data(actual.utf8) else { return }
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                try Data(actual.utf8).write(to: url, options: .atomic)
                print("golden: wrote \(path)")
            } catch {
                XCTFail("golden: cannot write \(path): \(error)", file: file, line: line)
            }
            return
        }
        guard let expectedData = try? Data(contentsOf: url) else {
            return XCTFail("\(path) is missing: create it with \(regenerate)", file: file, line: line)
        }
        guard expectedData != Data(actual.utf8) else { return }
        let expected = String(decoding: expectedData, as: UTF8.self)
        let saved = saveActual(actual, name: name)
        XCTFail(
            "\(path) differs from the rendered output:\n\(firstDifference(expected: expected, actual: actual))\n"
                + (saved.map { "the whole output is in \($0) (diff -u \(path) \($0))\n" } ?? "")
                + "if the change is intended, regenerate with \(regenerate)",
            file: file, line: line)
    }

    /// The first line that differs, as `line N` with both versions.
    static func firstDifference(expected: String, actual: String) -> String {
        let expectedLines = lines(of: expected)
        let actualLines = lines(of: actual)
        for index in 0..<max(expectedLines.count, actualLines.count) {
            let old = index < expectedLines.count ? shown(expectedLines[index]) : "(end of file)"
            let new = index < actualLines.count ? shown(actualLines[index]) : "(end of output)"
            if old != new {
                return "first difference at line \(index + 1) (of \(expectedLines.count) golden, \(actualLines.count) rendered):\n"
                    + "  golden:   \(old)\n  rendered: \(new)"
            }
        }
        return "the same lines, different bytes (line endings or encoding)"
    }

    /// Split at each line feed by scalar: as Characters, `\r\n` is one
    /// and would hide a changed line ending.
    private static func lines(of text: String) -> [String.UnicodeScalarView.SubSequence] {
        text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false)
    }

    /// A line with its control characters visible, so that two ANSI lines
    /// that differ in an escape sequence read differently.
    private static func shown(_ line: String.UnicodeScalarView.SubSequence) -> String {
        guard !line.isEmpty else { return "(empty line)" }
        return line.map { scalar in
            scalar.value < 0x20 || scalar.value == 0x7F ? "\\u{\(String(scalar.value, radix: 16))}" : String(scalar)
        }.joined()
    }

    /// The rendered output beside the system's temporary files, for a full diff.
    private static func saveActual(_ actual: String, name: String) -> String? {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pinwatch-golden-\(getpid())-\(name)")
        return (try? Data(actual.utf8).write(to: url)).map { url.path }
    }
}
