import XCTest

@testable import PinwatchCore

extension ConfigLoader {
    /// The problems of a configuration that must not load; one that loads
    /// fails the calling test.
    func problems(ofYAML yaml: String, path: String, file: StaticString = #filePath, line: UInt = #line) -> [ConfigProblem] {
        do {
            _ = try load(yaml: yaml, path: path)
            XCTFail("expected a configuration error", file: file, line: line)
            return []
        } catch {
            return error.problems
        }
    }
}
