import Dispatch
import Foundation
import XCTest

@testable import PinwatchProbe

/// The resolver pool never spends a thread on a lookup nobody waits for.
final class NameResolverTests: XCTestCase {
    func testAJobPastItsDeadlineIsSkippedNotLookedUp() throws {
        let resolver = NameResolver(threads: 1)
        defer { resolver.stop() }
        let answered = expectation(description: "answered")
        var message: String?
        let past = DispatchTime.now().uptimeNanoseconds - 1
        resolver.resolve(host: "localhost", port: 443, deadline: past) { answer in
            if case .failed(let text) = answer { message = text }
            answered.fulfill()
        }
        wait(for: [answered], timeout: 5)
        XCTAssertEqual(message, "cannot resolve localhost: the deadline passed before the lookup started")
    }

    func testAJobWithinItsDeadlineIsLookedUp() throws {
        let resolver = NameResolver(threads: 1)
        defer { resolver.stop() }
        let answered = expectation(description: "answered")
        var addresses: [SocketAddress] = []
        let future = DispatchTime.now().uptimeNanoseconds + 5_000_000_000
        resolver.resolve(host: "127.0.0.1", port: 443, deadline: future) { answer in
            if case .addresses(let found) = answer { addresses = found }
            answered.fulfill()
        }
        wait(for: [answered], timeout: 5)
        XCTAssertFalse(addresses.isEmpty)
    }
}
