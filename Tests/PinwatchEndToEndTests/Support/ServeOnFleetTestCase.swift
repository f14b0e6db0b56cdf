import Foundation
import PinwatchProbe
import PinwatchTestSupport
import XCTest

/// A fleet with `serve` started on its configuration, on a port of its
/// own, stopped after each test.
class ServeOnFleetTestCase: LocalFleetTestCase {
    private var processes: [BackgroundProcess] = []

    override func tearDown() {
        processes.forEach { $0.stop() }
        processes.removeAll()
        super.tearDown()
    }

    /// The port `serve` answers `/-/ready` on.
    func startServe() throws -> Int {
        try startServeProcess().port
    }

    /// `serve` with `--state state` (off by default), and its process.
    func startServeProcess(state: String = "off") throws -> (port: Int, process: BackgroundProcess) {
        let port = try LocalPorts.closedPort()
        let process = try BackgroundProcess(
            PinwatchBinary.url.path,
            ["serve", "--config", fleet.configURL.path, "--listen", "127.0.0.1:\(port)", "--state", state],
            directory: fleet.directory, name: "serve-\(port)")
        processes.append(process)
        try waitUntil(timeout: 20, "serve ready: \(process.stderr)") {
            (try? LoopbackHTTP.get(port: port, "/-/ready", timeout: 2))?.status == 200
        }
        return (port, process)
    }
}
