import Foundation
import XCTest

extension XCTestCase {
    /// Polls `condition` until it holds; past `timeout` the test fails,
    /// naming `what`, and the caller stops there.
    func waitUntil(timeout: TimeInterval, _ what: @autoclosure () -> String, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return }
            usleep(100_000)
        }
        XCTFail("not within \(timeout) s: \(what())")
        throw LoopbackHTTP.Failure(description: "timed out")
    }
}
