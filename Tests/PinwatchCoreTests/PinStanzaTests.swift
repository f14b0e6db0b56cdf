import XCTest

@testable import PinwatchCore

final class PinStanzaTests: XCTestCase {
    private typealias F = Fixtures

    func testStanzaPutsLeafUnderLeafAndTheRestUnderCA() {
        let text = PinStanza.yaml(host: "api.example.com", port: 443, sni: nil, chain: F.chain())
        XCTAssertEqual(
            text,
            """
              - host: api.example.com
                port: 443
                pins:
                  ca:
                    - \(F.spkiPin(2).text)   # CN=R11
                    - \(F.spkiPin(3).text)   # CN=Root
                  leaf:
                    - \(F.spkiPin(1).text)   # CN=api.example.com

            """)
    }

    func testStanzaLoadsBackWithHostileSubjects() throws {
        var chain = F.chain()
        chain[0].facts.subject = "CN=x\nhosts:\n  - host: injected.example"
        chain[1].facts.subject = "CN=\u{1B}]0;title\u{07} # more"
        let stanza = PinStanza.yaml(host: "yes", port: 8443, sni: "edge.example", chain: chain)
        let loader = ConfigLoader { _ in [] }
        let config = try loader.load(yaml: "hosts:\n" + stanza, path: "/tmp/stanza.yaml")
        XCTAssertEqual(config.hosts.count, 1)
        let host = try XCTUnwrap(config.hosts.first)
        XCTAssertEqual(host.host, "yes")
        XCTAssertEqual(host.port, 8443)
        XCTAssertEqual(host.serverName, "edge.example")
        XCTAssertEqual(host.pins.ca.map(\.digest), [F.digest(2), F.digest(3)])
        XCTAssertEqual(host.pins.leaf.map(\.digest), [F.digest(1)])
        XCTAssertFalse(stanza.contains("\u{1B}"))
    }

    func testSelfSignedChainHasOnlyALeafPin() throws {
        let stanza = PinStanza.yaml(host: "self.example", port: 443, sni: "self.example", chain: [F.certificate("CN=self", key: 5)])
        XCTAssertFalse(stanza.contains("ca:"))
        XCTAssertFalse(stanza.contains("sni:"))
        let config = try ConfigLoader { _ in [] }.load(yaml: "hosts:\n" + stanza, path: "/tmp/s.yaml")
        XCTAssertEqual(config.hosts.first?.pins.leaf.map(\.digest), [F.digest(5)])
    }
}
