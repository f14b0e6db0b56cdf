import XCTest

@testable import PinwatchCore

final class CheckOverridesTests: XCTestCase {
    private func config(_ hosts: [HostConfig]) -> Config {
        var config = Config()
        config.hosts = hosts
        return config
    }

    private let api = HostConfig(host: "api.example.com")
    private let apiAlt = HostConfig(host: "api.example.com", port: 8443)
    private let cdn = HostConfig(host: "cdn.example.com")

    func testHostKeepsTheOneNamedWithOrWithoutItsPort() {
        var byName = config([api, cdn])
        XCTAssertNil(CheckOverrides(host: "CDN.example.com").apply(to: &byName))
        XCTAssertEqual(byName.hosts, [cdn])
        var byPort = config([api, apiAlt, cdn])
        XCTAssertNil(CheckOverrides(host: "api.example.com:8443").apply(to: &byPort))
        XCTAssertEqual(byPort.hosts, [apiAlt])
    }

    func testUnknownHostNamesTheConfiguredOnes() {
        var unknown = config([api, cdn])
        XCTAssertEqual(
            CheckOverrides(host: "www.example.com").apply(to: &unknown),
            "--host www.example.com is not in the configuration; configured hosts: api.example.com:443, cdn.example.com:443")
        var ambiguous = config([api, apiAlt])
        XCTAssertEqual(
            CheckOverrides(host: "api.example.com").apply(to: &ambiguous),
            "--host api.example.com names 2 hosts (api.example.com:443, api.example.com:8443): add the port")
    }

    func testThresholdsAndTimeoutReplaceTheConfiguredOnes() {
        var changed = config([api])
        XCTAssertNil(CheckOverrides(warningDays: 30, criticalDays: 10, timeout: "1500ms").apply(to: &changed))
        XCTAssertEqual(changed.warnDays, 30)
        XCTAssertEqual(changed.criticalDays, 10)
        XCTAssertEqual(changed.timeout, 1.5)
        var inverted = config([api])
        XCTAssertEqual(
            CheckOverrides(criticalDays: 40).apply(to: &inverted), "--critical 40 must not be more than warn_days 21")
        var badTimeout = config([api])
        XCTAssertEqual(
            CheckOverrides(timeout: "soon").apply(to: &badTimeout), "--timeout soon is not a duration (such as 10s or 500ms)")
    }
}
