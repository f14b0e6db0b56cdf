import Foundation
import XCTest

@testable import PinwatchSystem

final class ProcessEnvironmentTests: XCTestCase {
    /// Read from `environ` directly, it must say what Foundation says.
    func testItHoldsWhatFoundationReads() {
        setenv("PINWATCH_ENVIRONMENT_TEST", "a=b c", 1)
        defer { unsetenv("PINWATCH_ENVIRONMENT_TEST") }
        let read = ProcessEnvironment.read()
        XCTAssertEqual(read["PINWATCH_ENVIRONMENT_TEST"], "a=b c", "only the first = separates name and value")
        XCTAssertEqual(read, ProcessInfo.processInfo.environment)
        XCTAssertFalse(read.isEmpty)
    }
}
