import Foundation
import PinwatchLocalWorld
import PinwatchProbe
import PinwatchTestSupport
import XCTest

/// Every hostile peer the tests know, in one cycle beside good hosts
/// (README, "Hostile peers together"): the good hosts stay `ok`, each hostile one ends
/// within its timeout with an error that says what happened, the cycle
/// ends within the timeout plus a margin, and no raw control byte reaches
/// any output a person reads.
final class HostilePeersTogetherTests: LocalFleetTestCase {
    private static let timeout: TimeInterval = 2
    /// Start-up, PKI files and a loaded CI machine; far below a second timeout.
    private static let margin: TimeInterval = 3

    private static let directPeers: [(name: String, kind: String)] = [
        ("silent.test", "timeout"), ("slowloris.test", "timeout"), ("flood.test", "tls"), ("garbage.test", "tls"),
        ("hangup.test", "tls"), ("http.test", "tls"), ("huge.test", "tls"),
    ]

    func testOneCycleOverEveryHostilePeerBesideGoodHosts() throws {
        let good = try (1...3).map { try fleet.addOK("good\($0).test") }
        try addDirectPeers()
        let hostileText = try addHostileCertificates()
        try fleet.writeConfig(settings: ["interval: 30s"], timeout: "2s")

        let started = Date()
        let json = try fleet.run(["snapshot", "--format", "json"], timeout: 30)
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(json.status, 0, json.stderr)
        XCTAssertLessThan(elapsed, Self.timeout + Self.margin, "one cycle over every hostile peer")
        let document = try SnapshotJSON.decode(json.stdout)
        for host in good {
            XCTAssertEqual(try document.host(host.name).status, "ok", host.name)
        }
        for (name, kind) in Self.directPeers {
            let host = try document.host(name)
            XCTAssertEqual(host.status, "error", name)
            XCTAssertEqual(host.error?.kind, kind, "\(name): \(host.error.map { "\($0.kind): \($0.message)" } ?? "no error")")
            XCTAssertFalse(host.error?.message.isEmpty ?? true, name)
        }
        for name in hostileText {
            XCTAssertEqual(try document.host(name).status, "ok", "\(name): hostile text is only text")
        }
        XCTAssertFalse(json.stdout.containsRawControlBytes, "JSON escapes what it carries")

        for format in ["text", "ansi", "svg", "html"] {
            let outcome = try fleet.run(["snapshot", "--format", format, "--width", "160"], timeout: 30)
            XCTAssertEqual(outcome.status, 0, "\(format): \(outcome.stderr)")
            XCTAssertFalse(outcome.stdout.withoutColourSequences.containsRawControlBytes, "\(format) keeps a control byte")
            XCTAssertTrue(outcome.stdout.contains("good1.test"), format)
        }
        try assertDashboardShowsNoControlBytes()
    }

    /// Hostile proxies, each carrying one good host, all run at once.
    func testHostileProxiesEachEndWithinTheTimeout() throws {
        let target = try fleet.addOK("behind.test")
        let tlsRecordStart: [UInt8] = [0x16, 0x03, 0x03, 0x40, 0x00]
        let header = Array("HTTP/1.1 200 OK\r\n".utf8)
        let proxies: [(name: String, url: (Int) -> String, peer: ScriptedPeer, kind: String)] = [
            (
                "407", { "http://127.0.0.1:\($0)" },
                try ScriptedPeer(
                    .awaitBytes(1),
                    .send(
                        Array(
                            "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"\u{1B}]0;x\u{07}\"\r\n\r\n"
                                .utf8)),
                    .close), "proxy"
            ),
            (
                "200-then-garbage", { "http://127.0.0.1:\($0)" },
                try ScriptedPeer(.awaitBytes(1), .send(header + Array("\r\n".utf8) + Array(repeating: 0xAB, count: 4096)), .close),
                "tls"
            ),
            (
                "endless-header", { "http://127.0.0.1:\($0)" },
                try ScriptedPeer(.awaitBytes(1), .send(header), .repeatForever(Array("X-Pad: \u{1B}[2J aaaaaaaa\r\n".utf8))), "proxy"
            ),
            (
                "megabyte-header", { "http://127.0.0.1:\($0)" },
                try ScriptedPeer(
                    .awaitBytes(1), .send(header + Array(repeating: Array("X: y\r\n".utf8), count: 180_000).flatMap { $0 } + [13, 10]),
                    .close), "proxy"
            ),
            ("immediate-close", { "http://127.0.0.1:\($0)" }, try ScriptedPeer(.close), "proxy"),
            // Accepts no authentication, then claims success with an
            // address type that does not exist, then sends TLS-looking bytes.
            (
                "socks5-liar", { "socks5h://127.0.0.1:\($0)" },
                try ScriptedPeer(.awaitBytes(3), .send([5, 0]), .awaitBytes(8), .send([5, 0, 0, 9, 1, 2, 3] + tlsRecordStart), .close),
                "proxy"
            ),
        ]
        for proxy in proxies {
            fleet.keep(proxy.peer)
            try fleet.writeConfig(
                settings: ["proxy: \(proxy.url(proxy.peer.port))"], timeout: "2s", only: [target], name: "\(proxy.name).yaml")
        }

        var outcomes = [PinwatchBinary.Outcome?](repeating: nil, count: proxies.count)
        var durations = [TimeInterval](repeating: 0, count: proxies.count)
        let lock = NSLock()
        DispatchQueue.concurrentPerform(iterations: proxies.count) { index in
            let started = Date()
            let outcome = try? fleet.run(["snapshot", "--format", "json", "--config", "\(proxies[index].name).yaml"], timeout: 30)
            lock.withLock {
                outcomes[index] = outcome
                durations[index] = Date().timeIntervalSince(started)
            }
        }
        for (index, proxy) in proxies.enumerated() {
            let outcome = try XCTUnwrap(outcomes[index], proxy.name)
            XCTAssertEqual(outcome.status, 0, "\(proxy.name): \(outcome.stderr)")
            XCTAssertLessThan(durations[index], Self.timeout + Self.margin, proxy.name)
            let host = try SnapshotJSON.decode(outcome.stdout).host("behind.test")
            XCTAssertEqual(host.status, "error", proxy.name)
            XCTAssertEqual(host.error?.kind, proxy.kind, "\(proxy.name): \(host.error.map { "\($0.kind): \($0.message)" } ?? "none")")
            XCTAssertFalse(outcome.stdout.containsRawControlBytes, proxy.name)
        }
    }

    /// A proxy URL with a credential, written in every malformed way: the
    /// credential never appears in any output or error.
    func testMalformedProxyCredentialsNeverAppear() throws {
        try fleet.addOK("secret.test")
        let forms = [
            "Zq9xUser:Zq9xSecret@127.0.0.1:notaport",
            "http://Zq9xUser:Zq9xSecret@127.0.0.1:99999",
            "http://Zq9xUser:Zq9x%zzSecret@127.0.0.1:1",
            "http://Zq9xUser@127.0.0.1:1",
            "Zq9xUser:Zq9xSecret",
            "socks5://Zq9xUser:Zq9xSecret@",
            "htp://Zq9xUser:Zq9xSecret@127.0.0.1:3128",
        ]
        for (index, form) in forms.enumerated() {
            try fleet.writeConfig(settings: ["proxy: \"\(form)\""], timeout: "1s", name: "credential-\(index).yaml")
            for arguments in [
                ["snapshot", "--format", "json"], ["snapshot", "--format", "text"], ["check"], ["validate"],
            ] {
                let outcome = try fleet.run(arguments + ["--config", "credential-\(index).yaml"], timeout: 30)
                for secret in ["Zq9xSecret", "Zq9x%zzSecret", "Zq9xUser"] {
                    XCTAssertFalse(outcome.stdout.contains(secret), "\(form) \(arguments): stdout has \(secret)")
                    XCTAssertFalse(outcome.stderr.contains(secret), "\(form) \(arguments): stderr has \(secret)")
                }
            }
            let environment = try fleet.run(
                ["snapshot", "--format", "text"], environment: ["https_proxy": form], timeout: 30)
            XCTAssertFalse((environment.stdout + environment.stderr).contains("Zq9x"), "https_proxy=\(form)")
        }
    }

    // MARK: Peers

    private func addDirectPeers() throws {
        let ca = [LocalFleet.pin(fleet.root.certificate)]
        func add(_ name: String, _ server: some LocalServer) {
            fleet.keep(server)
            fleet.add(LocalFleet.Host(name: name, port: server.port, ca: ca))
        }
        add("silent.test", try BlackHoleServer())
        // A record header, then one byte a second: never a whole message.
        add(
            "slowloris.test",
            try ScriptedPeer(.awaitBytes(1), .trickle([0x16, 0x03, 0x03, 0x00, 0x7A] + Array(repeating: 0x02, count: 60), every: 1)))
        add("flood.test", try FloodServer(mode: .tls))
        var generator = SystemRandomNumberGenerator()
        add(
            "garbage.test",
            try ScriptedPeer(.awaitBytes(1), .send((0..<2048).map { _ in UInt8.random(in: 0...255, using: &generator) }), .close))
        // The start of a ServerHello, then the connection ends.
        add(
            "hangup.test",
            try ScriptedPeer(.awaitBytes(1), .send([0x16, 0x03, 0x03, 0x00, 0x50, 0x02, 0x00, 0x00, 0x4C, 0x03, 0x03]), .close))
        add("http.test", try PlaintextServer())
        let (huge, _) = try fleet.serveLeaf("huge.test", paddingBytes: 1_000_000)
        fleet.add(LocalFleet.Host(name: "huge.test", port: huge.port, ca: ca))
    }

    /// Valid chains whose names try to drive the terminal: escapes,
    /// bidi overrides and zero-width characters in subject, SAN and
    /// issuer, and a 64 KiB subject. Returns their host names.
    private func addHostileCertificates() throws -> [String] {
        let ca = [LocalFleet.pin(fleet.root.certificate)]
        let issuer = try fleet.root.issueIntermediate(commonName: "Evil\u{1B}[2J\u{202E}CA\u{200B}", pathLength: nil)
        let escapes = try issuer.issueLeaf(
            commonName: "esc\u{1B}]52;c;aGk=\u{07}\u{202E}\u{2066}x", dnsNames: ["escape.test", "a\u{1B}[31mred.test"])
        let escapeServer = fleet.keep(try LocalTLSServer(identity: Identity(leaf: escapes, intermediates: [issuer.certificate])))
        fleet.add(LocalFleet.Host(name: "escape.test", port: escapeServer.port, ca: ca))

        let wide = try fleet.issuing.issueLeaf(
            commonName: "wide.test", dnsNames: ["wide.test"],
            subjectExtras: [("1.3.6.1.4.1.55555.1", String(repeating: "W\u{1B}", count: 32 * 1024))])
        let wideServer = fleet.keep(try LocalTLSServer(identity: Identity(leaf: wide, intermediates: [fleet.issuing.certificate])))
        fleet.add(LocalFleet.Host(name: "wide.test", port: wideServer.port, ca: ca))
        return ["escape.test", "wide.test"]
    }

    private func assertDashboardShowsNoControlBytes() throws {
        let command = [PinwatchBinary.url.path, "watch", "--config", fleet.configURL.path, "--no-bell"].map(TmuxSession.quote)
            .joined(separator: " ")
        let session = try TmuxSession(command: command, columns: 160, rows: 40, environment: ["SWIFT_BACKTRACE": "interactive=no"])
        defer { session.close() }
        // The absence of control bytes means something only once every row
        // holds its result, hostile text included: the cycle has completed.
        let screen = try session.waitForScreen(timeout: 15 + Self.timeout + Self.margin, escapes: true) {
            $0.contains("good3.test") && $0.contains("silent.test") && $0.contains("escape.test") && $0.contains("last cycle")
                && !$0.contains("waiting")
        }
        XCTAssertFalse(screen.withoutColourSequences.containsRawControlBytes, "the dashboard passed a control byte:\n\(screen)")
        XCTAssertTrue(screen.contains("escape.test"))
    }
}

extension String {
    /// Any C0 control but newline, DEL, or a C1 control.
    var containsRawControlBytes: Bool {
        unicodeScalars.contains { ($0.value < 0x20 && $0.value != 0x0A) || (0x7F...0x9F).contains($0.value) }
    }

    /// Without the SGR colour sequences pinwatch and tmux write themselves.
    var withoutColourSequences: String {
        replacingOccurrences(of: "\u{1B}\\[[0-9;:]*m", with: "", options: .regularExpression)
    }
}
