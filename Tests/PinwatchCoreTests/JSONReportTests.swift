import XCTest

@testable import PinwatchCore

final class JSONReportTests: XCTestCase {
    private typealias F = Fixtures

    private func reports() -> [HostReport] {
        let ok = F.report(F.host(ca: [F.spkiPin(3)], leaf: [F.spkiPin(1)]), F.result(chain: F.chain()))
        let failed = F.report(
            HostConfig(host: "down.example", port: 8443, pins: PinSet(ca: [F.spkiPin(3)])),
            .failed(ProbeFailure(kind: .refused, message: "connection refused"), address: "10.0.0.9", elapsed: 0.0016))
        let unpinned = F.report(HostConfig(host: "new.example"), F.result(chain: F.chain(), trusted: false))
        return [ok, failed, unpinned]
    }

    private func parse(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    private let hostKeys = [
        "host", "port", "sni", "address", "status", "matched_tiers", "alerts", "severity", "reason", "headline", "trusted", "trust_error",
        "leaf_days_left", "leaf_not_after", "days_left", "earliest_not_after", "earliest_level", "proxy", "error", "elapsed_ms",
        "status_since", "changes_24h", "renewal_estimate", "clients", "next_chains", "survives", "recommended_pins", "ct", "labels",
        "runbook", "chain", "acknowledged",
    ]
    private let levelKeys = [
        "level", "role", "from_server", "subject", "issuer", "not_before", "not_after", "days_left", "key",
        "spki_sha256", "key_sha256", "cert_sha256", "lifetime_days", "lifetime_used", "matched",
    ]

    /// Hosts are written in blocks on every core: the document is the one
    /// written host after host, every host once and in order, past the
    /// blocks and batches of blocks.
    func testManyHostsAreWrittenInOrderAcrossBlocks() throws {
        let base = reports()
        let reports = (0..<2_600).map { index in
            var report = base[index % base.count]
            report.config.host = "h\(index).example"
            return report
        }
        let generatedAt = Date(timeIntervalSince1970: 1_795_255_200)
        let text = JSONReport.render(reports, generatedAt: generatedAt)
        let document = try parse(text)
        let hosts = try XCTUnwrap(document["hosts"] as? [[String: Any]])
        XCTAssertEqual(hosts.compactMap { $0["host"] as? String }, reports.map(\.config.host))
        let summary = try XCTUnwrap(document["summary"] as? [String: Any])
        XCTAssertEqual(summary["error"] as? Int, 867)
        XCTAssertEqual(summary["ok"] as? Int, 867)
        XCTAssertEqual(summary["unpinned"] as? Int, 866)
        var oneByOne = String(text.prefix { $0 != "[" }) + "[\n"
        oneByOne += reports.map { "    " + JSONReport.hostText($0, indent: 2) }.joined(separator: ",\n") + "\n  ]\n}\n"
        XCTAssertEqual(text, oneByOne)
    }

    func testDocumentShapeAndSummary() throws {
        let text = JSONReport.render(reports(), generatedAt: Date(timeIntervalSince1970: 1_795_255_200.75))
        let document = try parse(text)
        XCTAssertEqual(document["version"] as? Int, 1)
        XCTAssertEqual(document["generated_at"] as? String, "2026-11-21T10:00:00Z")
        var summary = try XCTUnwrap(document["summary"] as? [String: Any])
        let severity = try XCTUnwrap(summary.removeValue(forKey: "severity") as? [String: Int])
        XCTAssertEqual(summary as? [String: Int], ["ok": 1, "leaf_only": 0, "blocked": 0, "error": 1, "unpinned": 1])
        XCTAssertEqual(severity, ["critical": 0, "unknown": 1, "warning": 0, "ok": 2])
        let hosts = try XCTUnwrap(document["hosts"] as? [[String: Any]])
        XCTAssertEqual(hosts.map { $0["host"] as? String }, ["api.example.com", "down.example", "new.example"])
        for host in hosts {
            XCTAssertEqual(Set(host.keys), Set(hostKeys))
        }
        XCTAssertEqual(hosts.map { $0["severity"] as? String }, ["ok", "unknown", "ok"])
        XCTAssertEqual(hosts[1]["reason"] as? String, "probe failed (refused): connection refused")
    }

    /// The document is written in pieces as it goes: the hosts must still
    /// come out in configuration order, each once, written as one host
    /// alone is, with the separators in place.
    func testManyHostsComeOutInOrderWrittenAsEachAlone() throws {
        let count = 549
        let many = (0..<count).map { index in
            F.report(
                HostConfig(host: "host\(index).example", pins: PinSet(ca: [F.spkiPin(3)])),
                F.result(chain: F.chain(leafDaysLeft: Double(index % 90))))
        }
        let text = JSONReport.render(many, generatedAt: Date(timeIntervalSince1970: 1_795_255_200))
        let hosts = try XCTUnwrap(try parse(text)["hosts"] as? [[String: Any]])
        XCTAssertEqual(hosts.map { $0["host"] as? String }, (0..<count).map { "host\($0).example" })
        XCTAssertEqual(hosts.map { $0["leaf_days_left"] as? Int }, (0..<count).map { $0 % 90 })
        let expectedHosts = many.map { "    " + JSONReport.hostText($0, indent: 2) }.joined(separator: ",\n")
        XCTAssertTrue(text.hasSuffix(",\n  \"hosts\": [\n" + expectedHosts + "\n  ]\n}\n"))
    }

    func testFieldOrderFollowsTheDesign() throws {
        let text = JSONReport.renderHost(reports()[0])
        var lastPosition = text.startIndex
        for key in hostKeys {
            let range = try XCTUnwrap(text.range(of: "\"\(key)\":", range: lastPosition..<text.endIndex), key)
            lastPosition = range.upperBound
        }
        let topLevel = JSONReport.render([], generatedAt: F.now)
        let order = ["\"version\"", "\"generated_at\"", "\"summary\"", "\"hosts\""].compactMap { topLevel.range(of: $0)?.lowerBound }
        XCTAssertEqual(order, order.sorted())
        XCTAssertEqual(order.count, 4)
    }

    func testOkHostFieldsAndTypes() throws {
        let host = try parse(JSONReport.renderHost(reports()[0]))
        XCTAssertEqual(host["port"] as? Int, 443)
        XCTAssertEqual(host["sni"] as? String, "api.example.com")
        XCTAssertEqual(host["address"] as? String, "127.0.0.1")
        XCTAssertEqual(host["status"] as? String, "ok")
        XCTAssertEqual(host["matched_tiers"] as? [String], ["ca", "leaf"])
        XCTAssertEqual(host["alerts"] as? [String], [])
        XCTAssertEqual(host["trusted"] as? Bool, true)
        XCTAssertTrue(host["trust_error"] is NSNull)
        XCTAssertEqual(host["leaf_days_left"] as? Int, 60)
        XCTAssertEqual(host["leaf_not_after"] as? String, DateText.iso8601(F.now.addingTimeInterval(60 * F.day)))
        XCTAssertTrue(host["error"] is NSNull)
        XCTAssertEqual(host["elapsed_ms"] as? Int, 12)
        let proxy = try XCTUnwrap(host["proxy"] as? [String: Any])
        XCTAssertEqual(proxy["detected"] as? Bool, false)
        XCTAssertTrue(proxy["source"] is NSNull)
        XCTAssertTrue(proxy["url"] is NSNull)
        XCTAssertEqual(proxy["intercepted"] as? Bool, false)

        let chain = try XCTUnwrap(host["chain"] as? [[String: Any]])
        XCTAssertEqual(chain.count, 3)
        for level in chain { XCTAssertEqual(Set(level.keys), Set(levelKeys)) }
        let leaf = chain[0]
        XCTAssertEqual(leaf["level"] as? Int, 0)
        XCTAssertEqual(leaf["role"] as? String, "leaf")
        XCTAssertEqual(leaf["from_server"] as? Bool, true)
        XCTAssertEqual(leaf["subject"] as? String, "CN=api.example.com")
        XCTAssertEqual(leaf["issuer"] as? String, "CN=R11")
        XCTAssertEqual(leaf["days_left"] as? Int, 60)
        XCTAssertEqual(leaf["key"] as? String, "ECDSA P-256")
        XCTAssertEqual(leaf["spki_sha256"] as? String, PinText.base64(F.digest(1)))
        XCTAssertEqual(leaf["key_sha256"] as? String, PinText.base64(F.digest(101)))
        XCTAssertEqual(leaf["cert_sha256"] as? String, String(repeating: "c9", count: 32))
        XCTAssertEqual(leaf["matched"] as? [[String: String]], [["tier": "leaf", "pin": F.spkiPin(1).text]])
        let root = chain[2]
        XCTAssertEqual(root["role"] as? String, "root")
        XCTAssertEqual(root["from_server"] as? Bool, false)
        XCTAssertEqual(root["matched"] as? [[String: String]], [["tier": "ca", "pin": F.spkiPin(3).text]])
        let notBefore = try XCTUnwrap(leaf["not_before"] as? String)
        XCTAssertNotNil(notBefore.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$"#, options: .regularExpression))
    }

    func testErrorHost() throws {
        let host = try parse(JSONReport.renderHost(reports()[1]))
        XCTAssertEqual(host["status"] as? String, "error")
        XCTAssertEqual(host["port"] as? Int, 8443)
        XCTAssertEqual(host["address"] as? String, "10.0.0.9")
        XCTAssertEqual(host["alerts"] as? [String], ["probe_error"])
        XCTAssertEqual(host["matched_tiers"] as? [String], [])
        XCTAssertEqual(host["trusted"] as? Bool, false)
        XCTAssertTrue(host["trust_error"] is NSNull)
        XCTAssertTrue(host["leaf_days_left"] is NSNull)
        XCTAssertTrue(host["leaf_not_after"] is NSNull)
        XCTAssertEqual(host["elapsed_ms"] as? Int, 2)
        XCTAssertEqual(host["error"] as? [String: String], ["kind": "refused", "message": "connection refused"])
        XCTAssertEqual((host["chain"] as? [Any])?.count, 0)
    }

    func testUnpinnedHost() throws {
        let host = try parse(JSONReport.renderHost(reports()[2]))
        XCTAssertEqual(host["status"] as? String, "unpinned")
        XCTAssertEqual(host["alerts"] as? [String], ["untrusted"])
        XCTAssertEqual(host["trusted"] as? Bool, false)
        XCTAssertEqual(host["trust_error"] as? String, "unable to get local issuer certificate")
        let chain = try XCTUnwrap(host["chain"] as? [[String: Any]])
        XCTAssertEqual(chain.map { ($0["matched"] as? [Any])?.count }, [0, 0, 0])
    }

    func testHostileStringsAreEscapedAndRoundTrip() throws {
        let hostile = "CN=\"evil\"\\\u{1B}[2J\u{07}\n\u{0}\u{7F}\u{9B}31m\u{2028}ünïcode"
        var chain = F.chain()
        chain[0].facts.subject = hostile
        let text = JSONReport.renderHost(F.report(F.host(), F.result(chain: chain)))
        for raw in ["\u{1B}", "\u{07}", "\u{0}", "\u{7F}", "\u{9B}", "\u{2028}"] {
            XCTAssertFalse(text.contains(raw), "raw control \(raw.unicodeScalars.first!.value) in output")
        }
        XCTAssertTrue(text.contains(#"\u001b[2J\u0007\u000a\u0000\u007f\u009b31m\u2028"#))
        let host = try parse(text)
        let leaf = try XCTUnwrap((host["chain"] as? [[String: Any]])?.first)
        XCTAssertEqual(leaf["subject"] as? String, hostile)
    }

    /// DESIGN §8: bidi and zero-width characters make a look-alike subject;
    /// they are escaped, and still round-trip.
    func testHiddenFormattingCharactersAreEscaped() throws {
        let hostile = "CN=pay\u{200B}ments\u{202E}moc.\u{2066}x\u{FEFF}\u{E0041}"
        var chain = F.chain()
        chain[0].facts.subject = hostile
        let text = JSONReport.renderHost(F.report(F.host(), F.result(chain: chain)))
        for raw in ["\u{200B}", "\u{202E}", "\u{2066}", "\u{FEFF}", "\u{E0041}"] {
            XCTAssertFalse(text.contains(raw), "raw U+\(String(raw.unicodeScalars.first!.value, radix: 16)) in output")
        }
        XCTAssertTrue(text.contains(#"pay\u200bments\u202emoc.\u2066x\ufeff\udb40\udc41"#), text)
        let host = try parse(text)
        let leaf = try XCTUnwrap((host["chain"] as? [[String: Any]])?.first)
        XCTAssertEqual(leaf["subject"] as? String, hostile)
    }

    func testDatesAreUTCWithoutFractions() {
        XCTAssertEqual(DateText.iso8601(Date(timeIntervalSince1970: 0)), "1970-01-01T00:00:00Z")
        XCTAssertEqual(DateText.iso8601(Date(timeIntervalSince1970: 1_795_255_200.999)), "2026-11-21T10:00:00Z")
    }
}
