import PinwatchTestSupport
import XCTest

/// A test case with a fresh `LocalFleet` per test, stopped after it.
class LocalFleetTestCase: XCTestCase {
    var fleet: LocalFleet!

    override func setUpWithError() throws {
        try super.setUpWithError()
        fleet = try LocalFleet()
    }

    override func tearDown() {
        fleet?.stop()
        fleet = nil
        super.tearDown()
    }

    /// `pinwatch serve` on the fleet's configuration, on a free loopback port.
    func launchServe(environment: [String: String] = [:]) throws -> BackgroundProcess {
        try BackgroundProcess(
            PinwatchBinary.url.path,
            [
                "serve", "--config", fleet.directory.appendingPathComponent("pinwatch.yaml").path, "--listen",
                "127.0.0.1:\(try LocalPorts.closedPort())",
            ],
            directory: fleet.directory, name: "serve", environment: environment)
    }

    /// promtool, prometheus or amtool: CI installs Debian's prometheus and
    /// prometheus-alertmanager (.ci/run); a bare developer machine may not
    /// have them.
    func prometheusTool(_ name: String) throws -> String {
        let path = "/usr/bin/\(name)"
        try TestEnvironment.require(
            FileManager.default.isExecutableFile(atPath: path),
            "\(name) is not installed: apt-get install prometheus prometheus-alertmanager", skip: { XCTSkip($0) })
        return path
    }
}
