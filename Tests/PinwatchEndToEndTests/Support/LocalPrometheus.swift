import Foundation
import PinwatchTestSupport
import XCTest

/// Debian's Prometheus on 127.0.0.1, scraping the given targets every
/// second, with its storage in `directory`; stopped and started again on
/// the same port and storage for outage tests.
final class LocalPrometheus {
    static let path = "/usr/bin/prometheus"
    let port: Int
    private let directory: URL
    private let configURL: URL
    private(set) var process: BackgroundProcess?

    /// Skips (with the reason) where Prometheus is not installed; CI
    /// installs Debian's prometheus package (.ci/run).
    /// `ruleFiles`: alerting rules it evaluates every second.
    init(scraping targets: [Int], directory: URL, ruleFiles: [String] = []) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.path) else {
            throw XCTSkip("prometheus is not installed: apt-get install prometheus")
        }
        port = try LocalPorts.closedPort()
        self.directory = directory
        configURL = directory.appendingPathComponent("prometheus-\(port).yml")
        let list = targets.map { "\"127.0.0.1:\($0)\"" }.joined(separator: ", ")
        let rules = ruleFiles.map { "\"\($0)\"" }.joined(separator: ", ")
        try """
        global:
          scrape_interval: 1s
          evaluation_interval: 1s
        rule_files: [\(rules)]
        scrape_configs:
          - job_name: pinwatch
            static_configs:
              - targets: [\(list)]

        """.write(to: configURL, atomically: true, encoding: .utf8)
        try start()
    }

    deinit { stop() }

    func start() throws {
        process = try BackgroundProcess(
            Self.path,
            [
                "--config.file=\(configURL.path)", "--storage.tsdb.path=\(directory.appendingPathComponent("tsdb-\(port)").path)",
                "--web.listen-address=127.0.0.1:\(port)", "--log.level=warn",
            ],
            directory: directory, name: "prometheus-\(port)")
    }

    func stop() {
        process?.stop()
        process = nil
    }

    var url: String { "http://127.0.0.1:\(port)" }
}
