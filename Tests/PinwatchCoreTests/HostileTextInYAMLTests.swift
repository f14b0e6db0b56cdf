import XCTest
import Yams

@testable import PinwatchCore

/// Every file pinwatch writes for someone to load (`init`'s configuration,
/// the stanza of `inspect`, `y` and `preflight`, the recommended pins) is
/// parsed back from a chain whose subjects carry YAML after a line break
/// YAML knows but LF/CR filters miss; what it holds must be exactly what
/// the writer meant to write.
final class HostileTextInYAMLTests: XCTestCase {
    private typealias F = Fixtures

    /// A subject that, written raw, adds keys up to a hook.
    static func payload(_ breakCharacter: String) -> String {
        [
            "O=Example CA", "probe_targets: any", "listen: 0.0.0.0:19699", "hooks:", "  - - /bin/sh", "    - -c",
            "    - touch PWNED", "#",
        ].joined(separator: breakCharacter)
    }

    /// U+2028 and U+2029 (Zl, Zp), NEL, and the C0/C1/DEL a sanitiser
    /// turns into something else.
    static let breaks = ["\u{2028}", "\u{2029}", "\u{85}", "\n", "\r", "\u{0B}", "\u{7F}", "\u{9B}"]

    private func hostileChain(_ breakCharacter: String) -> [ChainCertificate] {
        var chain = F.chain()
        for index in chain.indices { chain[index].facts.subject = Self.payload(breakCharacter) }
        return chain
    }

    private func hostileReport(_ breakCharacter: String) -> HostReport {
        let base = F.report(HostConfig(host: "api.example.com"), F.result(chain: hostileChain(breakCharacter)))
        // A backup pin the catalogue recommends, named by a hostile subject too.
        let nextChains = NextChains(
            family: nil, provider: nil, chains: [], pool: [],
            recommended: [RecommendedPin(pin: F.spkiPin(9).text, subject: Self.payload(breakCharacter), isRoot: true)])
        return HostReport(
            config: base.config, result: base.result, status: base.status, matchedTiers: base.matchedTiers, alerts: base.alerts,
            levels: base.levels, leafDaysLeft: base.leafDaysLeft, proxy: base.proxy, nextChains: nextChains, now: F.now)
    }

    func testInitWritesOnlyHostsWhateverTheSubjects() throws {
        for character in Self.breaks {
            // A failure's message and a trust error are the server's words too.
            let failed = F.report(
                HostConfig(host: "down.example"),
                .failed(ProbeFailure(kind: .tls, message: Self.payload(character)), elapsed: 0.01))
            var untrustedResult = F.result(chain: hostileChain(character), trusted: false)
            untrustedResult.trustError = Self.payload(character)
            let untrusted = F.report(HostConfig(host: "self.example"), untrustedResult)
            let text = InitialConfig.yaml(reports: [hostileReport(character), untrusted, failed], timeout: nil, trust: .system, now: F.now)
            XCTAssertEqual(
                try YAMLShape.keyPaths(text),
                ["hosts", "hosts[].host", "hosts[].pins", "hosts[].pins.ca", "hosts[].port"], text)
            XCTAssertTrue(YAMLShape.isPrintableASCII(text), text)
            let config = try ConfigLoader { _ in [] }.load(yaml: text, path: "/tmp/init.yaml")
            XCTAssertEqual(config.hosts.map(\.host), ["api.example.com", "self.example"], "the failed host is only named")
            XCTAssertEqual(config.hosts[0].pins.ca.map(\.digest), [F.digest(2), F.digest(3)])
            XCTAssertEqual(config.hooks.count, 0)
            XCTAssertNil(config.listen)
            XCTAssertEqual(config.probeTargets, .configured)
        }
    }

    func testTheStanzaOfInspectAndYHoldsOnlyTheEntryWhateverTheSubjects() throws {
        for character in Self.breaks {
            let stanza = try XCTUnwrap(PinStanza.document(for: hostileReport(character)))
            XCTAssertEqual(
                try YAMLShape.keyPaths(stanza),
                ["hosts", "hosts[].host", "hosts[].pins", "hosts[].pins.ca", "hosts[].pins.leaf", "hosts[].port"], stanza)
            XCTAssertTrue(YAMLShape.isPrintableASCII(stanza), stanza)
            let config = try ConfigLoader { _ in [] }.load(yaml: stanza, path: "/tmp/stanza.yaml")
            XCTAssertEqual(config.hosts[0].pins.ca.map(\.digest), [F.digest(2), F.digest(3), F.digest(9)], "the backup pin too")
            XCTAssertEqual(config.hosts[0].pins.leaf.map(\.digest), [F.digest(1)])
            XCTAssertEqual(config.hooks.count, 0)
        }
    }

    func testPreflightsStanzaHoldsOnlyTheEntryWhateverTheSubjects() throws {
        for character in Self.breaks {
            let report = hostileReport(character)
            let stanza = PreflightReport(report: report, own: report, configured: false, source: "candidate.pem").stanza
            XCTAssertEqual(
                try YAMLShape.keyPaths(stanza),
                ["hosts", "hosts[].host", "hosts[].pins", "hosts[].pins.ca", "hosts[].pins.leaf", "hosts[].port"], stanza)
            XCTAssertTrue(YAMLShape.isPrintableASCII(stanza), stanza)
        }
    }

    func testARecommendedPinLineIsOnePinWhateverTheSubject() throws {
        for character in Self.breaks {
            let pin = RecommendedPin(pin: F.spkiPin(9).text, subject: Self.payload(character), isRoot: true)
            let line = NextChainText.recommendation(pin)
            let parsed = try XCTUnwrap(Yams.load(yaml: "pins:\n  - " + line) as? [String: Any], line)
            XCTAssertEqual(parsed.keys.sorted(), ["pins"], line)
            XCTAssertEqual(parsed["pins"] as? [String], [F.spkiPin(9).text], line)
        }
    }

    /// `pin` on a key file offers backup pin lines to paste under `leaf:`,
    /// each naming the file: a file name cannot add a key there either.
    func testThePinCommandsBackupLinesHoldOnlyPins() throws {
        for character in Self.breaks {
            let key = PublicKeyPins(
                source: "certificate request", subject: Self.payload(character), keyDescription: "ECDSA P-256", spkiSHA256: F.digest(7),
                keySHA256: F.digest(8))
            let text = ChainListing.text(file: Self.payload(character) + ".csr", keys: [key])
            let stanza = try XCTUnwrap(text.components(separatedBy: "add them to the tier the key will serve in):\n\n").last)
            XCTAssertTrue(YAMLShape.isPrintableASCII(stanza), stanza)
            let parsed = try XCTUnwrap(Yams.load(yaml: stanza) as? [String: Any], stanza)
            XCTAssertEqual(parsed.keys.sorted(), ["leaf"], stanza)
            XCTAssertEqual(parsed["leaf"] as? [String], [F.spkiPin(7).text], stanza)
        }
    }

    /// A double-quoted scalar (`trust:`, `connect:`, a host YAML would read
    /// as a boolean) reads back as the very text it was given.
    func testAQuotedScalarReadsBackAsItsText() throws {
        for text in ["/etc/ca\u{2028}hooks: x.pem", "a\"b\\c\u{85}d\u{2029}e\u{1F600}", "yes", "tab\there"] {
            let quoted = PinStanza.scalar(text)
            XCTAssertTrue(YAMLShape.isPrintableASCII(quoted), quoted)
            let parsed = try XCTUnwrap(Yams.load(yaml: "key: " + quoted) as? [String: Any], quoted)
            XCTAssertEqual(parsed["key"] as? String, text, quoted)
        }
    }

    func testAHostileConnectAndTrustPathStayValues() throws {
        let host = HostConfig(
            host: "api.example.com", port: 443, serverName: "api.example.com", connectAddress: "127.0.0.1",
            trust: .bundle("/etc/ca\u{2028}hooks:\u{2028}  - [/bin/sh]\u{2028}x.pem"))
        let stanza = "hosts:\n" + PinStanza.yaml(for: host, chain: hostileChain("\u{2028}"))
        XCTAssertEqual(
            try YAMLShape.keyPaths(stanza),
            [
                "hosts", "hosts[].connect", "hosts[].host", "hosts[].pins", "hosts[].pins.ca", "hosts[].pins.leaf", "hosts[].port",
                "hosts[].trust",
            ], stanza)
    }
}

/// What a YAML document holds, as the sorted paths of its mapping keys
/// (`hosts[].pins.ca`), to compare with what a writer meant to write.
enum YAMLShape {
    static func keyPaths(_ yaml: String) throws -> [String] {
        guard let node = try Yams.compose(yaml: yaml) else { return [] }
        var paths = Set<String>()
        collect(node, prefix: "", into: &paths)
        return paths.sorted()
    }

    private static func collect(_ node: Node, prefix: String, into paths: inout Set<String>) {
        switch node {
        case .mapping(let mapping):
            for (key, value) in mapping {
                let path = prefix.isEmpty ? (key.string ?? "?") : prefix + "." + (key.string ?? "?")
                paths.insert(path)
                collect(value, prefix: path, into: &paths)
            }
        case .sequence(let sequence):
            for item in sequence { collect(item, prefix: prefix + "[]", into: &paths) }
        default:
            break
        }
    }

    static func isPrintableASCII(_ text: String) -> Bool {
        text.utf8.allSatisfy { ($0 >= 0x20 && $0 <= 0x7E) || $0 == 0x0A }
    }
}
