import Foundation
import XCTest

@testable import PinwatchCore

/// `clients:` in the configuration; the sources are read by a stand-in
/// reader (the importers have their own tests).
final class ClientsConfigTests: XCTestCase {
    private let path = "/etc/pinwatch/pinwatch.yaml"
    private let key = Data([4] + [UInt8](repeating: 1, count: 64)).base64EncodedString()

    /// Every source yields a rule for api.test and one for `<name>.test`;
    /// a file named `broken*` fails as an importer would.
    private static let reader: ClientSourceReader = { source throws(ClientSourceError) in
        if source.locationText.contains("broken") {
            throw ClientSourceError(file: source.locationText, line: 7, message: "malformed XML (parser error 5)")
        }
        let label = source.name.replacingOccurrences(of: " ", with: "-")
        let domain = source.format == .curl ? "" : "\(label).test"
        return ImportedPins(
            file: source.locationText, format: source.format,
            rules: [
                ClientPinRule(domain: "api.test", pins: [Fixtures.spkiPin(1)], origin: "\(source.locationText):1"),
                ClientPinRule(domain: domain, pins: [Fixtures.spkiPin(2)], origin: "\(source.locationText):2"),
            ])
    }

    private func load(_ yaml: String) throws(ConfigError) -> Config {
        try ConfigLoader(certificateDigests: { _ in [] }, clientReader: Self.reader).load(yaml: yaml, path: path)
    }

    private func problems(_ yaml: String) -> [String] {
        do {
            _ = try load(yaml)
            return []
        } catch {
            return error.problems.map(\.description)
        }
    }

    func testSourcesAreReadAndTheirHostsJoinThePollOnce() throws {
        let config = try load(
            """
            hosts:
              - {host: api.test}
            clients:
              - {name: android 5.2, nsc: res/network_security_config.xml}
              - name: ios 7.1
                trustkit: /apps/ios/Info.plist
              - name: web
                dynamic_list: {url: "https://pins.example/list.json", public_key: "\(key)"}
            """)
        XCTAssertEqual(config.clients.map(\.name), ["android 5.2", "ios 7.1", "web"])
        XCTAssertEqual(
            config.clientSources.map(\.locationText),
            ["/etc/pinwatch/res/network_security_config.xml", "/apps/ios/Info.plist", "https://pins.example/list.json"])
        XCTAssertEqual(config.clientSources[2].publicKey, key)
        XCTAssertEqual(config.hosts.map(\.serverName), ["api.test", "android-5.2.test", "ios-7.1.test", "web.test"], "api.test once")
        XCTAssertEqual(config.hosts.last?.port, 443)
    }

    /// An Android rule for example.com with subdomains is a pattern: its base
    /// may never resolve, and probing it turned `check --client` UNKNOWN.
    func testPatternBasesAndSkippedNamesDoNotJoinThePoll() throws {
        let reader: ClientSourceReader = { source throws(ClientSourceError) in
            ImportedPins(
                file: source.locationText, format: source.format,
                rules: [
                    ClientPinRule(domain: "example.com", includeSubdomains: true, pins: [Fixtures.spkiPin(1)], origin: "nsc.xml:3"),
                    ClientPinRule(domain: "api.example.com", pins: [Fixtures.spkiPin(1)], origin: "nsc.xml:8"),
                    ClientPinRule(domain: "internal.example.com", pins: [Fixtures.spkiPin(1)], origin: "nsc.xml:9"),
                    ClientPinRule(domain: "cdn.example.net", includeSubdomains: true, pins: [Fixtures.spkiPin(1)], origin: "nsc.xml:12"),
                ])
        }
        let loader = ConfigLoader(certificateDigests: { _ in [] }, clientReader: reader)
        let config = try loader.load(
            yaml: """
                hosts:
                  - {host: cdn.example.net}
                clients:
                  - {name: android 5.2, nsc: nsc.xml, skip: [Internal.Example.com]}
                """, path: path)
        XCTAssertEqual(
            config.hosts.map(\.serverName), ["cdn.example.net", "api.example.com"],
            "a listed base is probed; an unlisted one and a skipped name are not")
        XCTAssertEqual(config.clients.first?.skip, ["internal.example.com"])
        XCTAssertEqual(
            config.clients.first?.rules(for: "www.example.com").map(\.origin), ["nsc.xml:3"], "the pattern still judges its subdomains")

        XCTAssertThrowsError(
            try loader.load(yaml: "clients:\n  - {name: a, nsc: a.xml, skip: [\"bad host\"]}\n", path: path)
        ) { error in
            XCTAssertTrue("\(error)".contains("clients[0].skip[0]"), "\(error)")
        }
    }

    func testCurlAndHPKPTakeTheEntrysHost() throws {
        let config = try load("clients:\n  - {name: probe, curl: probe.sh, host: Health.Example}\n")
        XCTAssertEqual(config.clients.first?.pins.rules.map(\.domain), ["api.test", "health.example"])
        XCTAssertEqual(
            problems("clients:\n  - {name: probe, curl: probe.sh}\n"),
            ["\(path):2: clients: client \"probe\": /etc/pinwatch/probe.sh:2: names no host: add host: to the client entry"])
    }

    func testABrokenSourceIsAnErrorOnItsLineUnlessOptional() throws {
        XCTAssertEqual(
            problems("hosts: []\nclients:\n  - name: evil\n    nsc: broken.xml\n"),
            ["\(path):3: clients: client \"evil\": /etc/pinwatch/broken.xml:7: malformed XML (parser error 5)"])
        let config = try load("hosts: []\nclients:\n  - {name: evil, nsc: broken.xml, optional: true}\n  - {name: good, nsc: ok.xml}\n")
        XCTAssertEqual(config.clients.map(\.name), ["good"])
        XCTAssertEqual(
            config.clientWarnings,
            ["\(path):3: client \"evil\": /etc/pinwatch/broken.xml:7: malformed XML (parser error 5) (optional: left out)"])
    }

    func testEntriesThatCannotWork() {
        let cases: [(String, String)] = [
            ("clients:\n  - {name: a, nsc: a.xml, trustkit: b.plist}\n", "give exactly one source"),
            ("clients:\n  - {name: a}\n", "found none"),
            ("clients:\n  - {nsc: a.xml}\n", "clients[0].name: missing"),
            ("clients:\n  - {name: a, nsc: a.xml, colour: red}\n", "clients[0].colour: unknown key"),
            ("clients:\n  - {name: a, nsc: a.xml}\n  - {name: a, nsc: b.xml}\n", "duplicate client \"a\", first at line 2"),
            ("clients:\n  - {name: a, nsc: a.xml, public_key: \"\(key)\"}\n", "only a dynamic_list has a public_key"),
            ("clients:\n  - {name: a, dynamic_list: {file: l.json}}\n", "public_key: missing"),
            ("clients:\n  - {name: a, dynamic_list: {public_key: \"\(key)\"}}\n", "give url: or file: for the signed list"),
            ("clients:\n  - {name: a, dynamic_list: {url: ftp://x, public_key: \"\(key)\"}}\n", "is not an http(s) URL"),
            ("clients:\n  - {name: a, dynamic_list: {file: l.json, public_key: AAAA}}\n", "expected an uncompressed P-256 point"),
            (
                "clients:\n  - {name: a, dynamic_list: {url: \"https://u:secret@x.example/l\", public_key: \"\(key)\"}}\n",
                "credentials in the URL are not supported"
            ),
            ("clients:\n  - {name: a, dynamic_list: {url: \"https:///l\", public_key: \"\(key)\"}}\n", "is not a URL with a host"),
            (
                "clients:\n  - {name: a, dynamic_list: {url: \"https://x.example/l\", public_key: \"\(key)\", signature: AAAA, challenge: c}}\n",
                "signature: and challenge: are for a saved list (file:); a URL is fetched with a fresh challenge"
            ),
            (
                "clients:\n  - {name: a, dynamic_list: {file: l.json, public_key: \"\(key)\", signature: AAAA}}\n",
                "a saved challenge-signed list needs both signature: and challenge:"
            ),
            (
                "clients:\n  - {name: a, dynamic_list: {file: l.json, public_key: \"\(key)\", signature: AAAA, challenge: \"a b\"}}\n",
                "expected the X-Cert-Pinning-Challenge header's value"
            ),
            ("clients:\n  - {name: a, nsc: a.xml, optional: maybe}\n", "expected true or false, found \"maybe\""),
            ("clients:\n  - {name: a, curl: a.sh, host: \"bad host\"}\n", "is not a host name"),
        ]
        for (yaml, expected) in cases {
            let found = problems(yaml)
            XCTAssertEqual(found.count, 1, "\(yaml): \(found)")
            XCTAssertTrue(found.first?.contains(expected) == true, "expected \(expected) in \(found)")
        }
    }

    func testAutoPinsInAPinset() throws {
        let config = try load(
            """
            pinsets:
              app:
                auto: ["\(Fixtures.spkiPin(1).text)", "sha1/\(Data(repeating: 3, count: 20).base64EncodedString())"]
            hosts:
              - {host: api.test, pinset: app}
            """)
        XCTAssertEqual(config.hosts.first?.pins.auto.map(\.kind), [.spki, .spkiSHA1])
        XCTAssertTrue(
            problems("pinsets:\n  app:\n    auto: [\"sha1/\(Data(repeating: 3, count: 32).base64EncodedString())\"]\nhosts: []\n").first?
                .contains("digest is 32 bytes, a SHA-1 digest is 20") == true)
    }
}
