import Foundation
import PinwatchLocalWorld
import PinwatchProbe
import PinwatchTestSupport
import XCTest

/// `report_uri:`: a real `serve` receiving the pin-failure reports TrustKit,
/// HPKP (RFC 7469 §3) and react-native-ssl-manager post, through curl;
/// stored in the history store, counted in `/metrics`, raising
/// `client_reports` on a host that probes fine and on no other, and shown
/// by `history` with the chain the client saw escaped.
final class ServeClientReportsTests: ServeOnFleetTestCase {
    private static let token = "b7c1e0f2a9d84c3e8f6a5b4c3d2e1f00"
    /// An inspecting proxy's CA whose subject carries an ESC sequence and a
    /// U+2028, as a hostile network could serve it.
    private static let hostileName = "Corp Inspection\u{1B}[31m red\u{2028}PINWATCH OK"

    private func startReportingServe() throws -> (port: Int, process: BackgroundProcess, state: String, hosts: [String: Int]) {
        try TestEnvironment.require(
            FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"), "curl is not installed: apt-get install curl",
            skip: { XCTSkip($0) })
        let fine = try fleet.addOK("fine.test")
        let quiet = try fleet.addOK("quiet.test")
        let blocked = try fleet.addBlockedNoMatch("blocked.test")
        try fleet.write(Self.token + "\n", to: "report.token")
        try fleet.writeConfig(settings: ["interval: 1s", "report_uri: {path: /report, token_file: report.token}"], timeout: "1s")
        let state = fleet.directory.appendingPathComponent("state.sqlite").path
        let (port, process) = try startServeProcess(state: state)
        return (port, process, state, ["fine.test": fine.port, "quiet.test": quiet.port, "blocked.test": blocked.port])
    }

    /// POSTs `body` with curl from `source`; the status and the answer's text.
    private func post(
        port: Int, _ body: Data, query: String = "token=\(ServeClientReportsTests.token)", source: String = "127.0.0.1",
        method: String = "POST"
    ) throws -> (status: Int, text: String) {
        let file = fleet.directory.appendingPathComponent("body-\(UUID().uuidString).json")
        try body.write(to: file)
        let answer = fleet.directory.appendingPathComponent("answer-\(UUID().uuidString).txt")
        let outcome = try SpawnedCommand.run(
            "/usr/bin/curl",
            [
                "-sS", "--max-time", "10", "--interface", source, "-X", method, "-H", "Content-Type: application/json", "-H", "Expect:",
                "--data-binary", "@\(file.path)", "-o", answer.path, "-w", "%{http_code}", "http://127.0.0.1:\(port)/report?\(query)",
            ], timeout: 20)
        let text = (try? String(contentsOf: answer, encoding: .utf8)) ?? ""
        return (Int(outcome.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1, text + outcome.stderr)
    }

    private func json(_ object: [String: Any]) throws -> Data {
        try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    }

    /// The chain an inspecting proxy serves for `host`: its own leaf under its own root.
    private func interceptedChain(for host: String) throws -> [String] {
        let proxyRoot = try CertificateAuthority.makeRoot(commonName: "Inspection Root", subjectExtras: [("name", Self.hostileName)])
        let leaf = try proxyRoot.issueLeaf(commonName: host, dnsNames: [host])
        return [leaf.certificate.pem, proxyRoot.certificate.pem]
    }

    /// TrustKit's report (TSKPinFailureReport's keys, and the ones later
    /// releases add: app-vendor-id, app-platform, trustkit-version…).
    private func trustKitReport(host: String, port: Int) throws -> Data {
        try json([
            "app-bundle-id": "com.example.bank", "app-version": "7.1", "app-vendor-id": "0D5F6C0A-3B1E-4C7D-9E2A-5F6B7C8D9E0F",
            "app-platform": "IOS", "app-platform-version": "17.4.1", "trustkit-version": "3.0.4", "hostname": host, "port": port,
            "noted-hostname": host, "include-subdomains": false, "enforce-pinning": true,
            "validated-certificate-chain": try interceptedChain(for: host),
            "known-pins": ["pin-sha256=\"\(String(fleet.hosts[0].ca[0].dropFirst("sha256/".count)))\""], "validation-result": 2,
            "date-time": "2026-12-06T11:00:00Z",
        ])
    }

    /// RFC 7469 §3's report: the served and the validated chain.
    private func hpkpReport(host: String, port: Int) throws -> Data {
        let chain = try interceptedChain(for: host)
        return try json([
            "date-time": "2026-12-06T11:00:00Z", "hostname": host, "port": port, "effective-expiration-date": "2027-06-06T11:00:00Z",
            "include-subdomains": false, "noted-hostname": host, "served-certificate-chain": chain, "validated-certificate-chain": chain,
            "known-pins": ["pin-sha256=\"d6qzRu9zOECb90Uez27xWltNsj0e1Md7GkYYkVoZWmM=\""],
        ])
    }

    /// react-native-ssl-manager's (PinningFailureReporter): no chain and
    /// no port, only the pins of the keys it was served.
    private func sslManagerReport(host: String) throws -> Data {
        try json([
            "hostname": host, "enforced": true, "known-pins": ["sha256/d6qzRu9zOECb90Uez27xWltNsj0e1Md7GkYYkVoZWmM="],
            "served-pins": ["sha256/Y9mvm0exBk1JoQ57f9Vm28jKo5lFm/woKcVxrYxu80o="], "message": "Certificate pinning failure!",
            "date-time": "2026-12-06T11:00:00Z",
        ])
    }

    private static func line(_ metrics: String, _ parts: [String]) -> Bool {
        metrics.split(separator: "\n").contains { line in parts.allSatisfy { line.contains($0) } }
    }

    func testEachFormatIsStoredCountedAndRaisesClientReportsOnlyOnAHostThatProbesFine() throws {
        let (port, serve, state, hosts) = try startReportingServe()
        let finePort = try XCTUnwrap(hosts["fine.test"])
        let blockedPort = try XCTUnwrap(hosts["blocked.test"])
        try waitUntil(timeout: 20, "fine.test never probed ok: \(serve.stderr)") {
            let metrics = (try? LoopbackHTTP.get(port: port, "/metrics", timeout: 2).body) ?? ""
            return Self.line(metrics, ["pinwatch_host_reason_info{", "host=\"fine.test\"", ",severity=\"ok\","])
        }

        for (name, body) in [
            ("trustkit", try trustKitReport(host: "fine.test", port: finePort)),
            ("hpkp", try hpkpReport(host: "fine.test", port: finePort)), ("ssl_manager", try sslManagerReport(host: "fine.test")),
            ("trustkit for the blocked host", try trustKitReport(host: "blocked.test", port: blockedPort)),
        ] {
            let answer = try post(port: port, body)
            XCTAssertEqual(answer.status, 202, "\(name): \(answer.text)")
        }

        let metrics = try LoopbackHTTP.get(port: port, "/metrics").body
        for client in ["trustkit", "hpkp", "ssl_manager"] {
            XCTAssertTrue(
                metrics.contains("pinwatch_client_reports_total{host=\"fine.test\",port=\"\(finePort)\",client=\"\(client)\"} 1\n"),
                metrics)
        }
        XCTAssertTrue(
            metrics.contains("pinwatch_client_reports_total{host=\"blocked.test\",port=\"\(blockedPort)\",client=\"trustkit\"} 1\n"))

        try waitUntil(timeout: 20, "client_reports never raised on fine.test: \(serve.stderr)") {
            let metrics = (try? LoopbackHTTP.get(port: port, "/metrics", timeout: 2).body) ?? ""
            return Self.line(metrics, ["pinwatch_host_alert{", "host=\"fine.test\"", "alert=\"client_reports\""])
        }
        let later = try LoopbackHTTP.get(port: port, "/metrics").body
        XCTAssertTrue(Self.line(later, ["pinwatch_host_reason_info{", "host=\"fine.test\"", ",severity=\"warning\","]), later)
        XCTAssertFalse(Self.line(later, ["pinwatch_host_alert{", "host=\"blocked.test\"", "alert=\"client_reports\""]), later)
        XCTAssertFalse(Self.line(later, ["pinwatch_host_alert{", "host=\"quiet.test\"", "alert=\"client_reports\""]), later)
        XCTAssertTrue(Self.line(later, ["pinwatch_host_reason_info{", "host=\"blocked.test\"", ",severity=\"critical\","]), later)

        let history = try fleet.run(["history", "fine.test", "--state", state])
        XCTAssertEqual(history.status, 0, history.stderr)
        XCTAssertTrue(
            history.stdout.contains("client report from trustkit (com.example.bank 7.1; chain not trusted): CN=fine.test <- "),
            history.stdout)
        XCTAssertTrue(history.stdout.contains("client report from hpkp: CN=fine.test"), history.stdout)
        XCTAssertTrue(history.stdout.contains("served key sha256/Y9mvm0exBk1JoQ57f9Vm28jKo5lFm/woKcVxrYxu80o="), history.stdout)
        // The name as the probe reads it (RFC 4514 escapes the ESC as \1B),
        // then escaped to printable ASCII when the record is made (U+2028).
        XCTAssertTrue(history.stdout.contains("\\1B[31m red\\u2028PINWATCH OK"), "escaped, still readable:\n\(history.stdout)")
        for output in [history.stdout, serve.stderr, later] {
            XCTAssertFalse(output.unicodeScalars.contains { $0.value == 0x2028 || $0.value == 0x1B }, output)
        }
        let json = try fleet.run(["history", "fine.test", "--state", state, "--format", "json"])
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let reports = try XCTUnwrap((object["hosts"] as? [[String: Any]])?.first?["client_reports"] as? [[String: Any]], json.stdout)
        XCTAssertEqual(reports.compactMap { $0["format"] as? String }, ["trustkit", "hpkp", "ssl_manager"])
        XCTAssertTrue(serve.stderr.contains("client report"), serve.stderr)
    }

    func testBadPostsAreRefusedWithTheirReasonAndAFloodIsCounted() throws {
        let (port, serve, _, hosts) = try startReportingServe()
        let finePort = try XCTUnwrap(hosts["fine.test"])
        let report = try trustKitReport(host: "fine.test", port: finePort)

        XCTAssertEqual(try post(port: port, report, query: "").status, 401)
        XCTAssertEqual(try post(port: port, report, query: "token=not-the-token-at-all-0000").status, 403)
        let big = try post(port: port, Data(repeating: UInt8(ascii: " "), count: 70 * 1024) + report)
        XCTAssertEqual(big.status, 413, big.text)
        let garbage = try post(port: port, Data("{not json".utf8))
        XCTAssertEqual(garbage.status, 400, garbage.text)
        XCTAssertTrue(garbage.text.contains("not a JSON object"), garbage.text)
        let stranger = try post(port: port, try trustKitReport(host: "elsewhere.test", port: 443))
        XCTAssertEqual(stranger.status, 422, stranger.text)
        XCTAssertTrue(stranger.text.contains("is not a host pinwatch watches"), stranger.text)
        let get = try LoopbackHTTP.get(port: port, "/report?token=\(Self.token)")
        XCTAssertEqual(get.status, 405, get.body)

        // Another address's bucket: the flood does not starve 127.0.0.1.
        var statuses: [Int] = []
        for _ in 0..<30 { statuses.append(try post(port: port, report, source: "127.0.0.3").status) }
        XCTAssertEqual(statuses.prefix(20).filter { $0 == 202 }.count, 20, "\(statuses)")
        XCTAssertTrue(statuses.suffix(5).allSatisfy { $0 == 429 }, "\(statuses)")
        XCTAssertEqual(try post(port: port, report).status, 202, "127.0.0.1 still reports")

        let metrics = try LoopbackHTTP.get(port: port, "/metrics").body
        let rate = metrics.split(separator: "\n").first { $0.hasPrefix("pinwatch_client_reports_refused_total{reason=\"rate\"}") }
        XCTAssertGreaterThanOrEqual(Int(rate?.split(separator: " ").last ?? "") ?? 0, 5, metrics)
        XCTAssertTrue(metrics.contains("pinwatch_client_reports_refused_total{reason=\"token\"} 2\n"), metrics)
        XCTAssertTrue(metrics.contains("pinwatch_client_reports_refused_total{reason=\"size\"} 1\n"), metrics)
        XCTAssertTrue(metrics.contains("pinwatch_client_reports_refused_total{reason=\"invalid\"} 2\n"), metrics)
        XCTAssertTrue(serve.stderr.contains("client report refused"), serve.stderr)
    }
}
