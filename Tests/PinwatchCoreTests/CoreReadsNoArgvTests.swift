import Foundation
import XCTest

/// DESIGN §9: Core is pure, so command lines are read by the executables;
/// Core gets their values, never the words.
final class CoreReadsNoArgvTests: XCTestCase {
    func testNoCoreSourceReadsTheCommandLine() throws {
        let core = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources/PinwatchCore")
            .standardizedFileURL
        let files = try XCTUnwrap(FileManager.default.enumerator(at: core, includingPropertiesForKeys: nil))
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
        XCTAssertGreaterThan(files.count, 50, "found the Core sources at \(core.path)")
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            for word in ["CommandLine", "unsafeArgv", "PlainOptions"] {
                XCTAssertFalse(text.contains(word), "\(file.lastPathComponent) reads the command line (\(word))")
            }
        }
    }
}
