import PinwatchSystem
import XCTest

@testable import PinwatchCore

final class ConfigLoaderTests: XCTestCase {
    private let isrg = "sha256/C5+lpZ7tcVwmwQIMcRtPbsQtWLABXhQzejna0wHFr8M="
    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "pinwatch-core-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Stands in for the OpenSSL reader: `certs.pem` holds two certificates,
    /// `roots.pem` one, `empty.pem` none, anything else does not exist.
    private func loader() -> ConfigLoader {
        ConfigLoader(
            certificateDigests: { path in
                if path.hasSuffix("/certs.pem") { return [Fixtures.digest(40), Fixtures.digest(41)] }
                if path.hasSuffix("/roots.pem") { return [Fixtures.digest(42)] }
                if path.hasSuffix("/empty.pem") { return [] }
                throw ProxyURLError("\(path): no such file")
            }, readText: { path, limit throws(RegularFile.ReadError) in try RegularFile.readText(path, limit: limit) })
    }

    private func load(_ yaml: String) throws(ConfigError) -> Config {
        try loader().load(yaml: yaml, path: directory + "/pinwatch.yaml")
    }

    /// The problems of a config that must not load.
    private func problems(_ yaml: String, file: StaticString = #filePath, line: UInt = #line) -> [ConfigProblem] {
        loader().problems(ofYAML: yaml, path: directory + "/pinwatch.yaml", file: file, line: line)
    }

    private func assertOneProblem(
        _ yaml: String, line expectedLine: Int, key: String, contains text: String,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        let found = problems(yaml, file: file, line: line)
        XCTAssertEqual(found.count, 1, "\(found)", file: file, line: line)
        guard let problem = found.first else { return }
        XCTAssertEqual(problem.line, expectedLine, "\(problem)", file: file, line: line)
        XCTAssertEqual(problem.key, key, "\(problem)", file: file, line: line)
        XCTAssertTrue(problem.message.contains(text), "\(problem.message)", file: file, line: line)
        XCTAssertEqual(problem.file, directory + "/pinwatch.yaml", file: file, line: line)
    }

    func testFullValidConfig() throws {
        XCTAssertTrue(FileManager.default.createFile(atPath: directory + "/roots.pem", contents: Data("PEM".utf8)))
        let config = try load(
            """
            interval: 5m
            timeout: 500ms
            concurrency: 100
            warn_days: 30
            critical_days: 10
            theme: themes/mine.yaml
            trust: roots.pem
            proxy: socks5h://user:pw@proxy.local
            pinsets:
              letsencrypt:
                ca:
                  - \(isrg)
            hosts:
              - host: api.example.com
                port: 8443
                sni: edge.example.com
                connect: 127.0.0.1
                pinset: letsencrypt
                pins:
                  ca: [ "file:certs.pem" ]
                  leaf:
                    - spki:\(String(repeating: "ab", count: 32))
                trust: system
              - host: www.example.com
            """)
        XCTAssertEqual(config.interval, 300)
        XCTAssertEqual(config.timeout, 0.5, accuracy: 1e-9)
        XCTAssertEqual(config.concurrency, 100)
        XCTAssertEqual([config.warnDays, config.criticalDays], [30, 10])
        XCTAssertEqual(config.theme, directory + "/themes/mine.yaml")
        XCTAssertEqual(config.trust, .bundle(directory + "/roots.pem"))
        XCTAssertEqual(
            config.proxy,
            .url(ProxyRoute(scheme: .socks5h, host: "proxy.local", port: 1080, username: "user", password: "pw", source: "config")))
        XCTAssertEqual(config.pinsets["letsencrypt"]?.ca.map(\.text), [isrg])
        XCTAssertEqual(config.hosts.count, 2)

        let api = config.hosts[0]
        XCTAssertEqual(api.port, 8443)
        XCTAssertEqual(api.serverName, "edge.example.com")
        XCTAssertEqual(api.connectAddress, "127.0.0.1")
        XCTAssertEqual(api.pinsetName, "letsencrypt")
        XCTAssertEqual(api.trust, .system)
        XCTAssertEqual(api.line, 14)
        XCTAssertEqual(
            api.pins.ca.map(\.text), ["cert:" + PinText.hex(Fixtures.digest(40)), "cert:" + PinText.hex(Fixtures.digest(41)), isrg])
        XCTAssertEqual(api.pins.ca.map(\.kind), [.cert, .cert, .spki])
        XCTAssertEqual(api.pins.leaf.map(\.digest), [[UInt8](repeating: 0xAB, count: 32)])

        let www = config.hosts[1]
        XCTAssertEqual([www.port, www.line], [443, 24])
        XCTAssertEqual(www.serverName, "www.example.com")
        XCTAssertEqual(www.trust, .bundle(directory + "/roots.pem"), "hosts inherit the top-level trust")
        XCTAssertTrue(www.pins.isEmpty)
    }

    func testEmptyDocumentAndEmptyHostsAreFine() throws {
        XCTAssertEqual(try load("").hosts, [])
        XCTAssertEqual(try load("hosts: []\n").hosts, [])
        XCTAssertEqual(try load("hosts:\n").hosts, [])
    }

    func testDurationsAndProxySpellings() throws {
        XCTAssertEqual(try load("interval: 90").interval, 90)
        XCTAssertEqual(try load("interval: 1h").interval, 3600)
        XCTAssertEqual(try load("interval: 2.5s\ntimeout: 2s").interval, 2.5)
        XCTAssertEqual(try load("proxy: off").proxy, .off)
        XCTAssertEqual(try load("proxy: \"off\"").proxy, .off)
        XCTAssertEqual(try load("proxy: auto").proxy, .auto)
        XCTAssertEqual(try load("proxy: http://p:3128").proxy, .url(ProxyRoute(scheme: .http, host: "p", port: 3128, source: "config")))
    }

    func testUnknownTopLevelKey() {
        assertOneProblem("interval: 60s\nintervall: 5s\n", line: 2, key: "intervall", contains: "unknown key (did you mean interval?)")
    }

    /// A misspelt key or pin set name names the nearest known one (two
    /// edits at most); a name far from every known one gets no guess.
    func testMisspeltNamesSuggestTheNearestKnownOne() {
        assertOneProblem("warndays: 30\n", line: 1, key: "warndays", contains: "unknown key (did you mean warn_days?)")
        assertOneProblem(
            "hosts:\n  - host: a.example\n    pins:\n      laef: []\n", line: 4, key: "hosts[0].pins.laef",
            contains: "(did you mean leaf?)")
        assertOneProblem(
            "pinsets:\n  prod-ca:\n    ca: [\"sha256/\(String(repeating: "A", count: 43))=\"]\nhosts:\n  - host: a.example\n    pinset: prod-cs\n",
            line: 6, key: "hosts[0].pinset", contains: "unknown pinset \"prod-cs\" (did you mean prod-ca?)")
        assertOneProblem(
            "clients:\n  - {name: a, nsc: a.xml, optinal: true}\n", line: 2, key: "clients[0].optinal",
            contains: "unknown key (did you mean optional?)")
        let far = problems("colour: red\n")
        XCTAssertEqual(far.map(\.message), ["unknown key"])
    }

    func testUnknownHostKey() {
        assertOneProblem(
            "hosts:\n  - host: a.example\n    prot: 443\n", line: 3, key: "hosts[0].prot", contains: "unknown key (did you mean port?)")
    }

    func testUnknownTierKey() {
        assertOneProblem(
            "hosts:\n  - host: a.example\n    pins:\n      root: []\n", line: 4, key: "hosts[0].pins.root",
            contains: "expected ca, leaf or auto")
    }

    func testBadDuration() {
        assertOneProblem("interval: 60x\n", line: 1, key: "interval", contains: "bad duration \"60x\"")
        assertOneProblem("timeout: 0s\n", line: 1, key: "timeout", contains: "bad duration")
    }

    func testWrongType() {
        assertOneProblem("concurrency: many\n", line: 1, key: "concurrency", contains: "expected a whole number")
        assertOneProblem("hosts:\n  host: a.example\n", line: 2, key: "hosts", contains: "expected a list, found a mapping")
        assertOneProblem("hosts:\n  - host: [a, b]\n", line: 2, key: "hosts[0].host", contains: "expected a string, found a list")
    }

    func testOutOfRange() {
        assertOneProblem("concurrency: 10001\n", line: 1, key: "concurrency", contains: "out of range 1…10000")
        assertOneProblem("hosts:\n  - host: a.example\n    port: 70000\n", line: 3, key: "hosts[0].port", contains: "out of range")
        assertOneProblem("warn_days: 5\ncritical_days: 9\n", line: 2, key: "critical_days", contains: "must not be more than warn_days")
    }

    func testBadPinNamesHostAndPin() {
        let yaml = "hosts:\n  - host: api.example.com\n    pins:\n      ca:\n        - \(isrg)\n        - sha256/AAAA\n"
        assertOneProblem(
            yaml, line: 6, key: "hosts[0].pins.ca[1]", contains: "host api.example.com: pin \"sha256/AAAA\": digest is 3 bytes")
    }

    func testBadPinInPinsetNamesThePinset() {
        let yaml = "pinsets:\n  corp:\n    leaf:\n      - md5:00\n"
        assertOneProblem(yaml, line: 4, key: "pinsets.corp.leaf[0]", contains: "pinset corp: pin \"md5:00\": unknown pin form")
    }

    func testUnreadablePinFile() {
        let yaml = "hosts:\n  - host: a.example\n    pins:\n      leaf: [\"file:missing.pem\"]\n"
        assertOneProblem(yaml, line: 4, key: "hosts[0].pins.leaf[0]", contains: "\(directory)/missing.pem: no such file")
    }

    func testUnknownPinset() {
        assertOneProblem(
            "hosts:\n  - host: a.example\n    pinset: nope\n", line: 3, key: "hosts[0].pinset", contains: "unknown pinset \"nope\"")
    }

    func testDuplicateHosts() {
        let yaml = """
            hosts:
              - host: a.example
              - host: a.example
                sni: other.example
              - host: A.example
                port: 443
            """
        assertOneProblem(yaml, line: 5, key: "hosts[2]", contains: "first at hosts[0] line 2")
    }

    func testMissingHost() {
        assertOneProblem("hosts:\n  - port: 443\n", line: 2, key: "hosts[0].host", contains: "missing")
    }

    func testMissingTrustFile() {
        assertOneProblem("trust: nowhere.pem\n", line: 1, key: "trust", contains: "trust file \(directory)/nowhere.pem: no such file")
    }

    func testTrustFileWithoutCertificates() {
        assertOneProblem("trust: empty.pem\n", line: 1, key: "trust", contains: "trust file \(directory)/empty.pem holds no certificate")
    }

    func testBadProxy() {
        assertOneProblem("proxy: https://p:443\n", line: 1, key: "proxy", contains: "https:// proxies are not supported")
    }

    func testNonMappingDocument() {
        assertOneProblem("- a\n- b\n", line: 1, key: "(document)", contains: "expected a mapping, found a list")
    }

    func testYAMLSyntaxErrorHasALine() {
        let found = problems("interval: 60s\nhosts: [\n")
        XCTAssertEqual(found.count, 1)
        XCTAssertTrue(found.first?.message.hasPrefix("not valid YAML") == true)
        XCTAssertGreaterThan(found.first?.line ?? 0, 0)
    }

    func testEveryProblemIsCollectedInFileOrder() {
        let found = problems(
            """
            hosts:
              - host: a.example
                pinset: missing
            interval: soon
            colour: red
            """)
        XCTAssertEqual(found.map(\.line), [3, 4, 5])
        XCTAssertEqual(found.map(\.key), ["hosts[0].pinset", "interval", "colour"])
    }

    func testUnreadableFileIsAProblemOnLineZero() {
        let path = directory + "/absent.yaml"
        XCTAssertThrowsError(try loader().load(path: path)) { error in
            let problems = (error as? ConfigError)?.problems ?? []
            XCTAssertEqual(problems.count, 1)
            XCTAssertEqual(problems.first?.line, 0)
            XCTAssertEqual(problems.first?.file, path)
        }
    }

    func testTenThousandHostsValidateQuickly() throws {
        var yaml = "pinsets:\n  p:\n    ca: [\(isrg)]\nhosts:\n"
        for index in 0..<10_000 {
            yaml += "  - {host: h\(index).example, pinset: p}\n"
        }
        yaml += "  - {host: h5.example, pinset: p}\n"
        let found = problems(yaml)
        XCTAssertEqual(found.map(\.key), ["hosts[10000]"])
    }

    func testExampleConfigLoads() throws {
        let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("examples/pinwatch.yaml")
        let config = try loader().load(path: examples.path)
        XCTAssertEqual(config.hosts.map(\.host), ["example.org", "api.example.org", "www.example.com"])
        XCTAssertEqual(config.hosts[0].pins.ca.map(\.text), [isrg])
        XCTAssertEqual(config.hosts[1].pins.leaf.count, 1)
    }

    /// A file named without a folder: its relative paths start in the
    /// directory the caller gives, not wherever the test runs.
    func testRelativePathsOfAFileWithoutAFolderStartInTheGivenDirectory() throws {
        let loader = ConfigLoader(certificateDigests: { _ in [] }, currentDirectory: "/srv/pinwatch")
        let config = try loader.load(yaml: "theme: mine.yaml\nhosts: [{host: a.example}]\n", path: "pinwatch.yaml")
        XCTAssertEqual(config.theme, "/srv/pinwatch/mine.yaml")
    }

    /// One name behind two backends is two hosts; the same entry twice is not.
    func testTheSameHostWithAnotherConnectAddressIsAnotherHost() throws {
        let config = try load(
            """
            hosts:
              - {host: api.example.com, connect: 192.0.2.10}
              - {host: api.example.com, connect: 192.0.2.11}
              - {host: api.example.com}
            """)
        XCTAssertEqual(config.hosts.map(\.connectAddress), ["192.0.2.10", "192.0.2.11", nil])
        let found = problems(
            """
            hosts:
              - {host: api.example.com, connect: 192.0.2.10}
              - {host: API.example.com, connect: 192.0.2.10}
            """)
        XCTAssertEqual(found.count, 1)
        XCTAssertTrue(
            found.first?.message.contains("duplicate host API.example.com:443 (sni API.example.com, connect 192.0.2.10)") ?? false,
            "\(found)")
    }

    /// `host: a.test:8443` used to probe port 443 with SNI "a.test:8443".
    func testHostWithPortIsSplitAndAURLIsRefusedWithTheStanza() throws {
        let config = try load(
            """
            hosts:
              - host: a.test:8443
              - host: "[2001:db8::1]:8443"
              - host: "[2001:db8::2]"
              - host: 2001:db8::3
              - host: b.test:9443
                port: 9443
            """)
        XCTAssertEqual(config.hosts.map(\.host), ["a.test", "2001:db8::1", "2001:db8::2", "2001:db8::3", "b.test"])
        XCTAssertEqual(config.hosts.map(\.port), [8443, 8443, 443, 443, 9443])
        XCTAssertEqual(config.hosts.map(\.serverName), ["a.test", "2001:db8::1", "2001:db8::2", "2001:db8::3", "b.test"])
        let found = problems(
            """
            hosts:
              - host: https://user@c.test:8443/health
              - host: d.test:99
                port: 100
            """)
        XCTAssertEqual(
            found.map(\.message),
            [
                "\"https://user@c.test:8443/health\" is a URL; write host: c.test and port: 8443",
                "100 contradicts the port in host: \"d.test:99\"",
            ])
    }
}
