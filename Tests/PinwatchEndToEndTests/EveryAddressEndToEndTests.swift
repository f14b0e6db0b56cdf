import Foundation
import PinwatchCore
import PinwatchLocalWorld
import PinwatchTestSupport
import XCTest

/// DESIGN §11 (addresses: all): a rolling rotation, address by address. `rolling.test`
/// resolves to 127.0.0.2 and 127.0.0.3 (a hosts file of the test's own,
/// bound over /etc/hosts in a private mount namespace: root and `unshare`,
/// which CI has), and the two addresses serve different chains on the same
/// port. With `addresses: all` both are probed and the worst decides; with
/// `first` the host is the one probe it always was.
final class EveryAddressEndToEndTests: LocalFleetTestCase {
    private var port = 0

    override func setUpWithError() throws {
        try super.setUpWithError()
        try TestEnvironment.require(
            getuid() == 0, "a hosts file of the test's own needs root (a private mount namespace)", skip: { XCTSkip($0) })
        let probe = try PinwatchBinary.runShell("unshare --mount true")
        try TestEnvironment.require(probe.status == 0, "unshare --mount is not available: \(probe.stderr)", skip: { XCTSkip($0) })
        // The pinned chain (under the root the pins name) at .2, the
        // rotated one (another CA, trusted but unpinned) at .3.
        let pinned = try fleet.issuing.issueLeaf(commonName: "rolling.test", dnsNames: ["rolling.test"])
        let old = try fleet.keep(
            LocalTLSServer(identity: Identity(leaf: pinned, intermediates: [fleet.issuing.certificate]), loopback: "127.0.0.2"))
        port = old.port
        let rotated = try fleet.otherIssuing.issueLeaf(commonName: "rolling.test", dnsNames: ["rolling.test"])
        fleet.keep(
            try LocalTLSServer(
                identity: Identity(leaf: rotated, intermediates: [fleet.otherIssuing.certificate]), port: port, loopback: "127.0.0.3"))
        try fleet.write("127.0.0.1 localhost\n127.0.0.2 rolling.test\n127.0.0.3 rolling.test\n", to: "hosts")
    }

    private func writeConfig(addresses: String, entryLines: [String] = []) throws {
        try fleet.write(
            """
            timeout: 3s
            trust: trust.pem
            addresses: \(addresses)
            hosts:
              - host: rolling.test
                port: \(port)
                pins:
                  ca: [\(LocalFleet.pin(fleet.root.certificate))]
            \(entryLines.map { "    " + $0 }.joined(separator: "\n"))

            """, to: "pinwatch.yaml")
    }

    /// Runs pinwatch with `arguments` where `rolling.test` has both addresses.
    private func runResolvingBoth(_ arguments: String) throws -> PinwatchBinary.Outcome {
        let script = """
            cd '\(fleet.directory.path)'
            export PINWATCH='\(PinwatchBinary.url.path)'
            exec unshare --mount sh -c 'mount --bind hosts /etc/hosts && exec "$PINWATCH" "$@"' sh \(arguments)
            """
        return try PinwatchBinary.runShell(script, timeout: 30)
    }

    private func snapshotHost(_ output: PinwatchBinary.Outcome) throws -> [String: Any] {
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any], output.stderr)
        let hosts = try XCTUnwrap(document["hosts"] as? [[String: Any]])
        XCTAssertEqual(hosts.count, 1)
        return try XCTUnwrap(hosts.first)
    }

    func testWithAllEveryAddressIsProbedAndTheWorstWins() throws {
        try writeConfig(addresses: "all")
        let json = try runResolvingBoth("snapshot --format json --state off --config pinwatch.yaml")
        XCTAssertEqual(json.status, 0, json.stderr)
        let host = try snapshotHost(json)
        XCTAssertEqual(host["status"] as? String, "blocked", "\(host)")
        XCTAssertEqual(host["severity"] as? String, "critical")
        XCTAssertEqual(host["address"] as? String, "127.0.0.3", "the worst address's own probe")
        XCTAssertEqual(host["agreement"] as? String, "1 of 2 addresses serve another chain")
        XCTAssertTrue((host["reason"] as? String ?? "").hasPrefix("1 of 2 addresses serve another chain; 127.0.0.3: "), "\(host)")
        let addresses = try XCTUnwrap(host["addresses"] as? [[String: Any]])
        XCTAssertEqual(addresses.map { $0["address"] as? String }, ["127.0.0.2", "127.0.0.3"])
        XCTAssertEqual(addresses.map { $0["status"] as? String }, ["ok", "blocked"])
        let chains = addresses.map { $0["chain_sha256"] as? [String] ?? [] }
        XCTAssertFalse(chains[0].isEmpty)
        XCTAssertNotEqual(chains[0], chains[1], "two chains, told apart by their digests")
        // python3-jsonschema is installed by .ci/run: no silent skip here.
        let verdict = try SnapshotSchema.validate(try fleet.write(json.stdout, to: "all.json").path)
        XCTAssertEqual(verdict.status, 0, verdict.stderr)

        let check = try runResolvingBoth("check --state off --config pinwatch.yaml")
        XCTAssertEqual(check.status, 2, "CRITICAL, as the worst address is: \(check.stdout)\(check.stderr)")
        XCTAssertTrue(check.stdout.contains("1 of 2 addresses serve another chain"), check.stdout)

        let metrics = try runResolvingBoth("snapshot --format prometheus --state off --config pinwatch.yaml")
        XCTAssertEqual(metrics.status, 0, metrics.stderr)
        for (address, status) in [("127.0.0.2", "ok"), ("127.0.0.3", "blocked")] {
            XCTAssertTrue(
                metrics.stdout.contains(
                    "pinwatch_address_status{host=\"rolling.test\",port=\"\(port)\",address=\"\(address)\",status=\"\(status)\"} 1"),
                metrics.stdout)
        }
    }

    /// The rotated address is a known, silenced problem: `check` and
    /// `snapshot` honour the silence on a host of every address as `serve`
    /// does, with the store and without.
    func testCheckAndSnapshotHonourASilenceOnAHostOfEveryAddress() throws {
        let until = DateText.day(Date().addingTimeInterval(3 * 86_400))
        try writeConfig(addresses: "all", entryLines: ["silence: {until: \(until), reason: \"rotation under way\"}"])
        for state in ["off", "state.sqlite"] {
            let check = try runResolvingBoth("check --state \(state) --config pinwatch.yaml")
            XCTAssertEqual(check.status, 0, "state \(state): \(check.stdout)\(check.stderr)")
            XCTAssertTrue(check.stdout.hasPrefix("PINWATCH OK - 1 host fine (1 acknowledged) "), check.stdout)
            XCTAssertTrue(check.stdout.contains("1 of 2 addresses serve another chain"), check.stdout)
            XCTAssertTrue(check.stdout.contains(": rotation under way"), check.stdout)

            let json = try runResolvingBoth("snapshot --format json --state \(state) --config pinwatch.yaml")
            XCTAssertEqual(json.status, 0, json.stderr)
            let host = try snapshotHost(json)
            XCTAssertEqual(host["status"] as? String, "blocked", "\(host)")
            XCTAssertEqual((host["addresses"] as? [[String: Any]])?.count, 2, "\(host)")
            let acknowledged = try XCTUnwrap(host["acknowledged"] as? [String: Any], "state \(state): \(host)")
            XCTAssertEqual(acknowledged["reason"] as? String, "rotation under way")
        }
    }

    /// Eighty addresses, past the cap of 64: each cycle names the ones it
    /// left out, and the window moves, so an address past the first 64 in
    /// order (127.0.0.70, serving a chain no pin matches) is probed within
    /// a few cycles, and so is one only the first window holds (.60).
    func testPastTheCapTheAddressesLeftOutAreNamedAndEveryOneIsProbedWithinAFewCycles() throws {
        let rotated = try fleet.otherIssuing.issueLeaf(commonName: "rolling.test", dnsNames: ["rolling.test"])
        fleet.keep(
            try LocalTLSServer(
                identity: Identity(leaf: rotated, intermediates: [fleet.otherIssuing.certificate]), port: port, loopback: "127.0.0.70"))
        let addresses = (2...81).map { "127.0.0.\($0)" }
        try fleet.write(
            "127.0.0.1 localhost\n" + addresses.map { "\($0) rolling.test\n" }.joined(), to: "hosts")
        try writeConfig(addresses: "all")
        try fleet.write(
            String(contentsOf: fleet.directory.appendingPathComponent("pinwatch.yaml"), encoding: .utf8)
                .replacingOccurrences(of: "timeout: 3s", with: "timeout: 1s\ninterval: 2s"), to: "pinwatch.yaml")

        let json = try runResolvingBoth("snapshot --format json --state off --config pinwatch.yaml")
        XCTAssertEqual(json.status, 0, json.stderr)
        let host = try snapshotHost(json)
        let notProbed = try XCTUnwrap(host["addresses_not_probed"] as? [String], "\(host)")
        let probed = (host["addresses"] as? [[String: Any]] ?? []).compactMap { $0["address"] as? String }
        XCTAssertEqual(notProbed.count, 16)
        XCTAssertEqual(probed.count, 64)
        XCTAssertEqual(Set(probed + notProbed), Set(addresses), "every address either probed or named")
        XCTAssertTrue((host["agreement"] as? String ?? "").contains("(16 not probed this cycle: "), "\(host)")
        let verdict = try SnapshotSchema.validate(try fleet.write(json.stdout, to: "many.json").path)
        XCTAssertEqual(verdict.status, 0, verdict.stderr)
        let check = try runResolvingBoth("check --state off --config pinwatch.yaml")
        XCTAssertTrue(check.stdout.contains("16 not probed this cycle: "), check.stdout)

        let listen = try LocalPorts.closedPort()
        let serve = try BackgroundProcess(
            "/usr/bin/unshare",
            [
                "--mount", "sh", "-c",
                "cd \"$1\" && mount --bind hosts /etc/hosts && exec \"$0\" serve --config pinwatch.yaml --listen 127.0.0.1:\(listen)",
                PinwatchBinary.url.path, fleet.directory.path,
            ], directory: fleet.directory, name: "serve")
        defer { serve.stop() }
        var seen: Set<String> = []
        try waitUntil(timeout: 30, "both windows in /metrics (seen \(seen)): \(serve.stderr)") {
            let metrics = (try? LoopbackHTTP.get(port: listen, "/metrics").body) ?? ""
            if metrics.contains("address=\"127.0.0.70\",status=\"blocked\"} 1") { seen.insert("127.0.0.70") }
            if metrics.contains("address=\"127.0.0.60\",status=") { seen.insert("127.0.0.60") }
            return seen.count == 2
        }
    }

    func testWithFirstTheHostIsOneProbeAsBefore() throws {
        try writeConfig(addresses: "first")
        let json = try runResolvingBoth("snapshot --format json --state off --config pinwatch.yaml")
        XCTAssertEqual(json.status, 0, json.stderr)
        let host = try snapshotHost(json)
        XCTAssertEqual(host["status"] as? String, "ok", "the first address answers: \(host)")
        XCTAssertEqual(host["address"] as? String, "127.0.0.2")
        for key in ["addresses", "agreement", "key_types"] {
            XCTAssertNil(host[key], "\(key) only for a host of several probes")
        }
        let metrics = try runResolvingBoth("snapshot --format prometheus --state off --config pinwatch.yaml")
        XCTAssertFalse(metrics.stdout.contains("pinwatch_address_status{"), metrics.stdout)
    }

    /// The row says how the addresses agree, the detail view lists each
    /// address with its status, chain and since when (the history store,
    /// in the session's own state folder), and `y` copies the stanza of the
    /// chain most addresses serve (here, of equals, the first: .2's).
    func testTheDashboardShowsEachAddress() throws {
        try writeConfig(addresses: "all")
        let inner = "mount --bind hosts /etc/hosts && exec \"$0\" watch --config pinwatch.yaml --no-bell"
        let script =
            "cd \(TmuxSession.quote(fleet.directory.path)) && exec unshare --mount sh -c \(TmuxSession.quote(inner)) "
            + TmuxSession.quote(PinwatchBinary.url.path)
        let session = try TmuxSession(command: "sh -c \(TmuxSession.quote(script))", columns: 160, rows: 40)
        defer { session.close() }
        try session.waitForScreen { $0.contains("rolling.test") && $0.contains("1 of 2 addresses serve another chain; 127.0.0.3") }
        try session.send("Enter")
        let detail = try session.waitForScreen { $0.contains("probes: 2") }
        let rows = detail.split(separator: "\n")
        let pinned = try XCTUnwrap(rows.first { $0.contains("127.0.0.2 ") }, detail)
        let rotated = try XCTUnwrap(rows.first { $0.contains("127.0.0.3 ") && !$0.contains("serve another") }, detail)
        XCTAssertTrue(pinned.contains("ok") && !pinned.contains("another chain"), String(pinned))
        XCTAssertTrue(rotated.contains("blocked") && rotated.contains("(another chain)"), String(rotated))
        XCTAssertTrue(rotated.contains("since 20"), "when the address's chain began, from the history: \(rotated)")
        try session.setGlobalOption("set-clipboard", "on")
        try session.send("y")
        try session.waitForScreen { $0.contains("bytes sent as OSC 52") }
        var stanza = ""
        try waitUntil(timeout: 10, "the copied stanza in tmux's paste buffer") {
            stanza = (try? session.newestPasteBuffer()) ?? ""
            return stanza.contains("hosts:")
        }
        XCTAssertTrue(stanza.contains(LocalFleet.pin(fleet.issuing.certificate)), stanza)
        XCTAssertFalse(stanza.contains(LocalFleet.pin(fleet.otherIssuing.certificate)), stanza)
        try session.send("Q")
    }

    /// `serve` exports each address of the host, and its `/probe` of the
    /// configured host folds the addresses as its cycles do.
    func testServeExportsEachAddressAndProbeAgrees() throws {
        try writeConfig(addresses: "all")
        let port = try LocalPorts.closedPort()
        let serve = try BackgroundProcess(
            "/usr/bin/unshare",
            [
                "--mount", "sh", "-c",
                "cd \"$1\" && mount --bind hosts /etc/hosts && exec \"$0\" serve --config pinwatch.yaml --listen 127.0.0.1:\(port)",
                PinwatchBinary.url.path, fleet.directory.path,
            ], directory: fleet.directory, name: "serve")
        defer { serve.stop() }
        let blocked = "address=\"127.0.0.3\",status=\"blocked\"} 1"
        var metrics = ""
        try waitUntil(timeout: 20, "\(blocked) in /metrics: \(metrics)\n\(serve.stderr)") {
            metrics = (try? LoopbackHTTP.get(port: port, "/metrics").body) ?? ""
            return metrics.contains(blocked)
        }
        XCTAssertTrue(metrics.contains("address=\"127.0.0.2\",status=\"ok\"} 1"), metrics)

        let probed = try LoopbackHTTP.get(port: port, "/probe?target=rolling.test:\(self.port)")
        XCTAssertEqual(probed.status, 200, probed.body)
        XCTAssertTrue(probed.body.contains(blocked), probed.body)
        XCTAssertTrue(probed.body.contains("1 of 2 addresses serve another chain"), probed.body)
    }
}
