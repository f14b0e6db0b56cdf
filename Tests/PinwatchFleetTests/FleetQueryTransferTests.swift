import Foundation
import PinwatchCore
import PinwatchLocalWorld
import PinwatchTestSupport
import XCTest

@testable import PinwatchFleet

/// The query against servers on 127.0.0.1 that answer too much, too
/// slowly, somewhere else, or with values no pinwatch series holds: it
/// ends within its own deadline and bound, says which, and the transfer
/// stops with it.
final class FleetQueryTransferTests: XCTestCase {
    private var peers: [any LocalServer] = []

    override func tearDown() {
        peers.forEach { $0.stop() }
        peers.removeAll()
        super.tearDown()
    }

    private func serve<Peer: LocalServer>(_ peer: Peer) -> Peer {
        peers.append(peer)
        return peer
    }

    /// The outcome, and how long the query took.
    private func ask(port: Int, timeout: TimeInterval, within patience: TimeInterval) throws -> (
        Result<FleetSnapshot, FleetQueryProblem>, TimeInterval
    ) {
        let query = FleetQuery(server: try XCTUnwrap(URL(string: "http://127.0.0.1:\(port)")), selector: nil, timeout: timeout)
        defer { query.close() }
        let answered = expectation(description: "the query ends")
        let box = OutcomeBox()
        let started = Date()
        query.fetch { outcome in
            box.set(outcome, after: Date().timeIntervalSince(started))
            answered.fulfill()
        }
        wait(for: [answered], timeout: patience)
        return try XCTUnwrap(box.value)
    }

    private func problem(_ outcome: Result<FleetSnapshot, FleetQueryProblem>) -> String {
        if case .failure(let problem) = outcome { return problem.description }
        return "no problem: answered"
    }

    /// The connection the query opened is closed by the client soon after
    /// the query ends: nothing goes on being read in the background.
    private func waitForClosedConnections(_ peer: any LocalServer) {
        let closed = XCTNSPredicateExpectation(predicate: NSPredicate { _, _ in peer.openConnections == 0 }, object: nil)
        wait(for: [closed], timeout: 5)
        XCTAssertEqual(peer.openConnections, 0, "the transfer goes on after the query ended")
    }

    func testAnAnswerThatNeverEndsStopsAtTheBound() throws {
        let peer = serve(try FakePrometheus.streamingForever())
        let (outcome, took) = try ask(port: peer.port, timeout: 60, within: 45)
        XCTAssertTrue(problem(outcome).contains("Prometheus answered more than 64 MiB"), problem(outcome))
        XCTAssertLessThan(took, 5, "64 MiB took \(took) s")
        waitForClosedConnections(peer)
    }

    func testAnAnswerDrippingOneByteAtATimeEndsAtTheDeadline() throws {
        let peer = serve(try FakePrometheus.dripping(every: 0.5))
        let (outcome, took) = try ask(port: peer.port, timeout: 2, within: 10)
        XCTAssertTrue(problem(outcome).contains("timed out after 2 s"), problem(outcome))
        XCTAssertLessThan(took, 2 + 1.5, "the deadline is the whole query's")
        XCTAssertGreaterThan(took, 1.9)
        waitForClosedConnections(peer)
    }

    /// A large answer is read in time proportional to its size (it used
    /// to be copied whole at every chunk: 4 s for 16 MiB in a debug
    /// build, four times that for twice the size).
    func testAThirtyTwoMiBAnswerIsReadInOnePass() throws {
        let empty = Array(#"{"status":"success","data":{"resultType":"vector","result":[]}}"#.utf8)
        let padded = empty + [UInt8](repeating: UInt8(ascii: " "), count: (32 << 20) - empty.count)
        let peer = serve(try FakePrometheus.answering(body: padded))
        let (outcome, took) = try ask(port: peer.port, timeout: 60, within: 60)
        guard case .success(let fleet) = outcome else { return XCTFail(problem(outcome)) }
        XCTAssertTrue(fleet.hosts.isEmpty)
        XCTAssertLessThan(took, 6, "32 MiB took \(took) s")
    }

    func testAServerThatIsDownIsUnreachableAtOnce() throws {
        for _ in 0..<3 {
            let (outcome, took) = try ask(port: try LocalPorts.closedPort(), timeout: 5, within: 10)
            XCTAssertTrue(problem(outcome).contains("Prometheus unreachable"), problem(outcome))
            XCTAssertLessThan(took, 2)
        }
    }

    func testARedirectIsNotFollowedAndItsLocationNamed() throws {
        let elsewhere = serve(try FakePrometheus.answering([]))
        for location in ["http://127.0.0.1:\(elsewhere.port)/api/v1/query?query=up", "file:///etc/passwd"] {
            let peer = serve(try FakePrometheus.answering(body: [], status: "302 Found", headers: ["Location: \(location)"]))
            let (outcome, _) = try ask(port: peer.port, timeout: 5, within: 10)
            XCTAssertTrue(problem(outcome).contains("redirected the query to \(location)"), problem(outcome))
        }
        XCTAssertEqual(elsewhere.acceptedConnections, 0, "the redirect was followed")
    }

    func testSampleValuesOutOfRangeAreSkippedOverTheWire() throws {
        let labels = ["host": "api.test", "port": "443"]
        let peer = serve(
            try FakePrometheus.answering([
                FakePrometheus.sample(
                    labels.merging([
                        "__name__": "pinwatch_host_reason_info", "status": "ok", "severity": "ok", "headline": "ok", "reason": "fine",
                    ]) { $1 }, "1"),
                FakePrometheus.sample(["__name__": "pinwatch_last_cycle_timestamp_seconds"], "1e19"),
                FakePrometheus.sample(["__name__": "pinwatch_last_cycle_timestamp_seconds"], "1799999990"),
                FakePrometheus.sample(
                    labels.merging(["__name__": "pinwatch_chain_level_not_after_timestamp_seconds", "level": "0"]) { $1 }, "-1e300"),
                FakePrometheus.sample(labels.merging(["__name__": "pinwatch_pin_match", "level": "0", "tier": "leaf"]) { $1 }, "NaN"),
            ]))
        let (outcome, _) = try ask(port: peer.port, timeout: 5, within: 10)
        guard case .success(let fleet) = outcome else { return XCTFail(problem(outcome)) }
        XCTAssertEqual(fleet.hosts.map(\.host), ["api.test"])
        XCTAssertEqual(fleet.skipped, 3)
        XCTAssertEqual(fleet.oldestCycle, Date(timeIntervalSince1970: 1_799_999_990), "the cycle out of range is not the oldest")
    }
}

private final class OutcomeBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: (Result<FleetSnapshot, FleetQueryProblem>, TimeInterval)?

    func set(_ outcome: Result<FleetSnapshot, FleetQueryProblem>, after seconds: TimeInterval) {
        lock.lock()
        stored = (outcome, seconds)
        lock.unlock()
    }

    var value: (Result<FleetSnapshot, FleetQueryProblem>, TimeInterval)? {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}
