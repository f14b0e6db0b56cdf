import Foundation
import PinwatchTestSupport
import XCTest

/// docs/CONFIGURATION.md, "Hosts from more than one file": a running `serve` takes the
/// hosts of a file added to `conf.d/` and of a `file_sd` list on SIGHUP,
/// and keeps its configuration when an included file is broken.
final class ConfigIncludesEndToEndTests: LocalFleetTestCase {
    private var processes: [BackgroundProcess] = []

    override func tearDown() {
        processes.forEach { $0.stop() }
        processes.removeAll()
        super.tearDown()
    }

    private func metrics(_ port: Int) -> String {
        (try? LoopbackHTTP.get(port: port, "/metrics", timeout: 2).body) ?? ""
    }

    func testServeReloadsIncludedAndFileSDHostsAndRefusesABrokenInclude() throws {
        let first = try fleet.addOK("first.test")
        let second = try fleet.serveLeaf("second.test").server
        let third = try fleet.serveLeaf("third.test").server
        for folder in ["conf.d", "targets"] {
            try FileManager.default.createDirectory(at: fleet.directory.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        try fleet.writeConfig(
            settings: ["interval: 1s", "include: [conf.d/*.yaml]", "file_sd: [targets/*.json]"], timeout: "1s", only: [first])
        let port = try LocalPorts.closedPort()
        let serve = try BackgroundProcess(
            PinwatchBinary.url.path, ["serve", "--config", fleet.configURL.path, "--listen", "127.0.0.1:\(port)"],
            directory: fleet.directory, name: "serve-\(port)")
        processes.append(serve)
        try waitUntil(timeout: 20, "first.test never appeared: \(serve.stderr)") { metrics(port).contains("host=\"first.test\"") }
        XCTAssertFalse(metrics(port).contains("host=\"second.test\""))

        try fleet.write(
            "hosts:\n  - host: second.test\n    port: \(second.port)\n    connect: 127.0.0.1\n    labels: {team: web}\n",
            to: "conf.d/second.yaml")
        try fleet.write(
            #"[{"targets": ["127.0.0.1:\#(third.port)"], "labels": {"team": "payments", "__meta_x": "y"}}]"#, to: "targets/third.json")
        serve.signal(SIGHUP)
        try waitUntil(timeout: 15, "the included hosts never appeared: \(serve.stderr)") {
            let body = metrics(port)
            return body.contains("pinwatch_host_reason_info{host=\"second.test\"")
                && body.contains("pinwatch_host_labels{host=\"127.0.0.1\",port=\"\(third.port)\",team=\"payments\"")
        }
        XCTAssertTrue(
            metrics(port).contains("pinwatch_host_labels{host=\"second.test\",port=\"\(second.port)\",address=\"127.0.0.1\",team=\"web\""))

        try fleet.write("hosts:\n  - host: fourth.test\n    pins: {ca: [sha256/short]}\n", to: "conf.d/zz-broken.yaml")
        serve.signal(SIGHUP)
        try waitUntil(timeout: 15, "no refusal logged: \(serve.stderr)") {
            serve.stderr.contains("reload refused") && serve.stderr.contains("zz-broken.yaml:3")
        }
        let body = metrics(port)
        XCTAssertTrue(body.contains("host=\"second.test\""), "the old configuration keeps running")
        XCTAssertFalse(body.contains("host=\"fourth.test\""))
        XCTAssertTrue(serve.isRunning)

        // validate reads the included files as serve does.
        let validate = try fleet.run(["validate", "--config", fleet.configURL.path])
        XCTAssertEqual(validate.status, 2, validate.stderr)
        XCTAssertTrue(validate.stderr.contains("conf.d/zz-broken.yaml:3: hosts[0].pins.ca[0]"), validate.stderr)
    }
}
