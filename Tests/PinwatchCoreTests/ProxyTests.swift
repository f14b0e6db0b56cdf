import Foundation
import XCTest

@testable import PinwatchCore

final class ProxyTests: XCTestCase {
    func testParsingProxyURLs() throws {
        let cases: [(String, ProxyRoute.Scheme, String, Int, String?, String?)] = [
            ("http://proxy.local:3128", .http, "proxy.local", 3128, nil, nil),
            ("http://proxy.local", .http, "proxy.local", 80, nil, nil),
            ("proxy.local:8080", .http, "proxy.local", 8080, nil, nil),
            ("socks5://10.0.0.1", .socks5, "10.0.0.1", 1080, nil, nil),
            ("SOCKS5H://u:p%40ss@[::1]:9050/", .socks5h, "::1", 9050, "u", "p@ss"),
            ("http://alice@proxy:1", .http, "proxy", 1, "alice", nil),
        ]
        for (url, scheme, host, port, user, password) in cases {
            let route = try ProxyRoute.parse(url: url, source: "test")
            XCTAssertEqual(route.scheme, scheme, url)
            XCTAssertEqual(route.host, host, url)
            XCTAssertEqual(route.port, port, url)
            XCTAssertEqual(route.username, user, url)
            XCTAssertEqual(route.password, password, url)
        }
    }

    func testRedactedURLNeverHoldsCredentials() throws {
        let route = try ProxyRoute.parse(url: "http://bob:hunter2@proxy:3128", source: "config")
        XCTAssertEqual(route.redactedURL, "http://proxy:3128")
    }

    func testRejectedProxyURLs() {
        for url in ["https://proxy:443", "ftp://proxy", "http://proxy:0", "http://proxy:port", "http://:80", "http://p/path"] {
            XCTAssertThrowsError(try ProxyRoute.parse(url: url, source: "config"), url) { error in
                XCTAssertFalse("\(error)".contains("proxy:443/"), "no URL echo")
            }
        }
    }

    func testEnvironmentPrecedence() {
        let resolver = ProxyResolver(environment: [
            "HTTP_PROXY": "http://upper-http:1", "http_proxy": "http://lower-http:1", "ALL_PROXY": "socks5://all:1",
            "HTTPS_PROXY": "", "https_proxy": "",
        ])
        let route = resolver.route(forHost: "a.example", setting: .auto)
        XCTAssertEqual(route?.host, "all")
        XCTAssertEqual(route?.source, "ALL_PROXY")
        XCTAssertEqual(ProxyResolver(environment: ["HTTP_PROXY": "http://h:1"]).route(forHost: "a", setting: .auto)?.source, "HTTP_PROXY")
        XCTAssertNil(ProxyResolver(environment: [:]).route(forHost: "a", setting: .auto))
    }

    func testConfigURLWinsAndOffDisables() {
        let configured = ProxyRoute(scheme: .socks5, host: "c", port: 1080, source: "config")
        let resolver = ProxyResolver(environment: ["https_proxy": "http://env:1", "no_proxy": "*"])
        XCTAssertEqual(resolver.route(forHost: "a.example", setting: .url(configured)), configured)
        XCTAssertNil(resolver.route(forHost: "a.example", setting: .off))
        XCTAssertNil(resolver.route(forHost: "a.example", setting: .auto))
    }

    func testAProxyVariableThatCannotBeUsedStillCounts() throws {
        let resolver = ProxyResolver(environment: ["https_proxy": "https://ops:s3cret@proxy.internal:3128", "no_proxy": "direct.example"])
        let route = try XCTUnwrap(resolver.route(forHost: "api.example", setting: .auto))
        XCTAssertEqual(route.source, "https_proxy")
        XCTAssertEqual(route.problem, "https_proxy: https:// proxies are not supported (use http:// or socks5://)")
        XCTAssertFalse(route.redactedURL.contains("s3cret"), route.redactedURL)
        XCTAssertNil(resolver.route(forHost: "direct.example", setting: .auto), "no_proxy still applies")

        let report = Verdict.report(
            for: HostConfig(host: "api.example"),
            result: .failed(ProbeFailure(kind: .proxy, message: route.problem ?? ""), elapsed: 0, proxy: route),
            now: Date(), warnDays: 21, criticalDays: 7)
        XCTAssertEqual(report.status, .error)
        XCTAssertTrue(report.proxy.detected)
        XCTAssertEqual(report.alerts, [.proxy, .probeError])
    }

    func testNoProxyTable() {
        let cases: [(noProxy: String, host: String, excluded: Bool)] = [
            ("example.com", "example.com", true),
            ("example.com", "api.example.com", true),
            (".example.com", "api.example.com", true),
            (".example.com", "example.com", true),
            ("example.com", "badexample.com", false),
            ("EXAMPLE.com", "Api.Example.COM", true),
            ("example.com:8443", "api.example.com", true),
            ("other.org, example.com", "api.example.com", true),
            ("other.org", "api.example.com", false),
            ("*", "anything.at.all", true),
            ("*.example.com", "api.example.com", false),
            ("127.0.0.1", "127.0.0.1", true),
            ("0.0.1", "127.0.0.1", false),
            ("", "127.0.0.1", false),
            ("localhost", "127.0.0.1", false),
            ("::1", "::1", true),
            ("[::1]:443", "[::1]", true),
            ("example.com", "example.com.", true),
        ]
        for row in cases {
            let resolver = ProxyResolver(environment: ["https_proxy": "http://p:1", "no_proxy": row.noProxy])
            let excluded = resolver.route(forHost: row.host, setting: .auto) == nil
            XCTAssertEqual(excluded, row.excluded, "no_proxy=\(row.noProxy) host=\(row.host)")
        }
    }

    func testUppercaseNoProxyIsRead() {
        let resolver = ProxyResolver(environment: ["HTTPS_PROXY": "http://p:1", "NO_PROXY": "internal"])
        XCTAssertNil(resolver.route(forHost: "db.internal", setting: .auto))
    }

    func testProbeTargetsCarryEveryHostSetting() {
        let config = Config(
            timeout: 3, proxy: .auto,
            hosts: [
                HostConfig(
                    host: "a.example", port: 8443, serverName: "sni.example", connectAddress: "10.0.0.2", trust: .bundle("/roots.pem")),
                HostConfig(host: "b.internal"),
            ])
        let targets = config.probeTargets(environment: ["https_proxy": "http://p:3128", "no_proxy": ".internal"])
        XCTAssertEqual(targets.count, 2)
        XCTAssertEqual(
            targets[0],
            ProbeTarget(
                host: "a.example", port: 8443, serverName: "sni.example", connectAddress: "10.0.0.2", trust: .bundle("/roots.pem"),
                proxy: ProxyRoute(scheme: .http, host: "p", port: 3128, source: "https_proxy"), timeout: 3))
        XCTAssertNil(targets[1].proxy)
        XCTAssertEqual(targets[1].serverName, "b.internal")
    }
}
