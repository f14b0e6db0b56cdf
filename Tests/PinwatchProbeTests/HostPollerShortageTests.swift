import Foundation
import PinwatchCore
import PinwatchLocalWorld
import PinwatchMonitor
import PinwatchProbe
import PinwatchTestSupport
import XCTest

/// The poll pipeline `watch` and `serve` share, when pinwatch itself runs
/// out of descriptors: the host is not reported, so its last
/// verdict stands, and the cycle says why it failed.
final class HostPollerShortageTests: XCTestCase {
    private func cycle(_ poller: HostPoller) -> (reports: [HostReport], outcome: HostPoller.CycleOutcome?) {
        let queue = DispatchQueue(label: "test.poller")
        var reports: [HostReport] = []
        var outcome: HostPoller.CycleOutcome?
        let finished = expectation(description: "cycle finished")
        poller.startCycle(
            on: queue, onReports: { batch in reports += batch.map(\.report) },
            onFinish: {
                outcome = $0
                finished.fulfill()
            })
        wait(for: [finished], timeout: 20)
        return queue.sync { (reports, outcome) }
    }

    /// The lowest descriptor number not in use: with the soft limit there,
    /// the next socket fails with EMFILE.
    private func lowestFreeDescriptor() -> Int {
        (0..<65_536).first { fcntl(Int32($0), F_GETFD) == -1 } ?? 65_536
    }

    func testAProbeThatGetsNoSocketLeavesItsHostUnreportedAndFailsTheCycle() throws {
        let pki = try TestPKI()
        let server = try LocalTLSServer(identity: try pki.identity())
        let host = HostConfig(host: "api.test", port: server.port, connectAddress: "127.0.0.1", trust: pki.trust)
        let poller = HostPoller(config: Config(timeout: 5, hosts: [host]), environment: [:])

        let warm = cycle(poller)
        XCTAssertEqual(warm.reports.map(\.severity), [.ok], "a normal cycle first (an unpinned host is ok)")
        XCTAssertEqual(warm.outcome?.failed, false)

        var saved = rlimit()
        XCTAssertEqual(getrlimit(Int32(RLIMIT_NOFILE.rawValue), &saved), 0)
        var low = saved
        low.rlim_cur = rlim_t(lowestFreeDescriptor())
        XCTAssertEqual(setrlimit(Int32(RLIMIT_NOFILE.rawValue), &low), 0)
        let starved = cycle(poller)
        XCTAssertEqual(setrlimit(Int32(RLIMIT_NOFILE.rawValue), &saved), 0)

        XCTAssertEqual(starved.reports.count, 0, "no verdict from a probe that never left: \(starved.reports.map(\.reason))")
        XCTAssertEqual(starved.outcome?.shortages, [.descriptors: 1])
        XCTAssertEqual(starved.outcome?.failed, true)

        let recovered = cycle(poller)
        XCTAssertEqual(recovered.reports.count, 1)
        XCTAssertEqual(recovered.outcome?.failed, false)
        XCTAssertGreaterThan(server.acceptedConnections, 1)
    }
}
