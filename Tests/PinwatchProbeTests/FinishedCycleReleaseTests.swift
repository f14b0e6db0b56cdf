import Foundation
import PinwatchCore
import PinwatchProbe
import PinwatchTestSupport
import XCTest

/// A long-running engine (`watch`, `serve`) must not keep the cycles it
/// has finished: each holds its caller's closures and all they captured.
final class FinishedCycleReleaseTests: XCTestCase {
    private final class Captured: Sendable {}

    func testTheEngineLetsGoOfAFinishedCycleAndWhatItsClosuresCaptured() throws {
        let engine = ProbeEngine(concurrency: 4)
        let port = try LocalPorts.closedPort()
        let targets = (0..<3).map { _ in ProbeTarget(host: "127.0.0.1", port: port, serverName: "api.test", timeout: 5) }
        weak var released: Captured?
        do {
            let captured = Captured()
            released = captured
            let finished = DispatchSemaphore(value: 0)
            _ = engine.start(
                targets, deliversInline: true, onResult: { _, _ in withExtendedLifetime(captured) {} },
                onFinish: { finished.signal() })
            XCTAssertEqual(finished.wait(timeout: .now() + 20), .success, "the cycle did not finish")
        }
        // The cycle's delivery queue may still be returning from onFinish.
        let deadline = Date().addingTimeInterval(5)
        while released != nil && Date() < deadline { usleep(10_000) }
        XCTAssertNil(released, "the engine still holds a finished cycle's closures")
        // The engine still works once it has let go.
        XCTAssertEqual(engine.run(targets).compactMap(\.failure?.kind), [.refused, .refused, .refused])
    }
}
