import Foundation
import PinwatchLocalWorld
import PinwatchProbe
import PinwatchTestSupport
import XCTest

/// `ct: {logs: FILE}` through the binary: a host whose release pins one
/// intermediate of a pool, a local RFC 6962 log the configuration follows
/// through the log's own v3 list. A certificate for the host logged under
/// the sibling intermediate is announced (`next_leaf_logged`, naming the
/// release) while the server still sends its old chain; one under the
/// pinned intermediate alerts nothing; a log whose tree heads are not
/// signed by its key is `ct_log_misbehaving`, and nothing it logs counts.
final class CTEndToEndTests: ServeOnFleetTestCase {
    private var log: LocalCTLog!
    private var sibling: CertificateAuthority!
    private var host: LocalFleet.Host!

    override func setUpWithError() throws {
        try super.setUpWithError()
        host = try fleet.addOK("api.test")
        sibling = try fleet.root.issueIntermediate(commonName: "E2E Issuing CA 2", organization: "E2E Trust")
        log = try LocalCTLog(roots: [fleet.root.certificate])
        // A log is followed from its size at the first step: one entry
        // before it, never read.
        try logCertificate("before.test", under: fleet.issuing)
        try log.publish()
        try fleet.write(try log.logList(description: "Local Log 1"), to: "ct-logs.json")
    }

    override func tearDown() {
        log?.stop()
        log = nil
        super.tearDown()
    }

    private func logCertificate(_ name: String, under issuer: CertificateAuthority) throws {
        let leaf = try issuer.issueLeaf(commonName: name, dnsNames: [name])
        log.add(certificate: leaf.certificate, chain: [issuer.certificate, fleet.root.certificate])
    }

    /// Android 5.2 pins the fleet's issuing intermediate for api.test
    /// (and `more` too).
    private func settings(_ extra: [String] = [], more: [CertificateAuthority] = []) throws -> [String] {
        let pins = ([fleet.issuing] + more).map { authority in
            "<pin digest=\"SHA-256\">\(LocalFleet.pin(authority.certificate).dropFirst("sha256/".count))</pin>"
        }
        try fleet.write(
            """
            <?xml version="1.0" encoding="utf-8"?>
            <network-security-config>
              <domain-config>
                <domain>api.test</domain>
                <pin-set>\(pins.joined())</pin-set>
              </domain-config>
            </network-security-config>
            """, to: "nsc.xml")
        return ["clients:", "  - name: android 5.2", "    nsc: nsc.xml", "ct:", "  logs: ct-logs.json"] + extra
    }

    private func snapshot(state: String) throws -> [String: Any] {
        let outcome = try fleet.run(["snapshot", "--format", "json", "--config", fleet.configURL.path, "--state", state])
        let verdict = try SnapshotSchema.validate(try fleet.write(outcome.stdout, to: "snapshot.json").path)
        XCTAssertEqual(verdict.status, 0, "docs/snapshot.schema.json: \(verdict.stdout)\(verdict.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any]
        let hosts = try XCTUnwrap(object?["hosts"] as? [[String: Any]], outcome.stdout + outcome.stderr)
        return try XCTUnwrap(hosts.first { $0["host"] as? String == "api.test" }, outcome.stdout)
    }

    func testSnapshotJudgesWhatWasLoggedAndALaterRunStillSaysIt() throws {
        try fleet.writeConfig(settings: try settings())
        let state = fleet.directory.appendingPathComponent("state.sqlite").path
        let first = try snapshot(state: state)
        XCTAssertEqual((first["ct"] as? [Any])?.count, 0, "the log's history is not read: \(first)")
        XCTAssertEqual(first["severity"] as? String, "ok", "\(first)")

        try logCertificate("api.test", under: fleet.issuing)
        try log.publish()
        let pinned = try snapshot(state: state)
        let survivor = try XCTUnwrap((pinned["ct"] as? [[String: Any]])?.first, "\(pinned)")
        XCTAssertEqual(survivor["survives"] as? [String], ["android 5.2"])
        XCTAssertEqual(survivor["breaks"] as? [String], [])
        XCTAssertEqual(survivor["log"] as? String, "Local Log 1")
        XCTAssertEqual(pinned["severity"] as? String, "ok", "a certificate under the pinned intermediate alerts nothing: \(pinned)")
        XCTAssertFalse((pinned["alerts"] as? [String] ?? []).contains("next_leaf_logged"), "\(pinned)")

        try logCertificate("api.test", under: sibling)
        try log.publish()
        let broken = try snapshot(state: state)
        XCTAssertEqual((broken["ct"] as? [Any])?.count, 2, "the earlier run's certificate is kept: \(broken)")
        let logged = try XCTUnwrap((broken["ct"] as? [[String: Any]])?.first, "\(broken)")
        XCTAssertEqual(logged["breaks"] as? [String], ["android 5.2"])
        XCTAssertEqual(logged["precertificate"] as? Bool, false)
        XCTAssertTrue((logged["issuer"] as? String ?? "").contains("E2E Issuing CA 2"), "\(logged)")
        XCTAssertEqual(
            logged["issuer_spki_sha256"] as? String,
            sibling.certificate.facts.spkiSHA256.map { String(format: "%02x", $0) }.joined())
        XCTAssertTrue((broken["alerts"] as? [String] ?? []).contains("next_leaf_logged"), "\(broken)")
        XCTAssertEqual(broken["headline"] as? String, "next_leaf_logged", "\(broken)")
        XCTAssertEqual(broken["severity"] as? String, "critical", "its validity has begun: \(broken)")
        let reason = broken["reason"] as? String ?? ""
        XCTAssertTrue(reason.contains("android 5.2") && reason.contains("E2E Issuing CA 2"), reason)
        // The server has not changed its chain: its own verdict is still fine.
        XCTAssertEqual(broken["status"] as? String, "ok", "\(broken)")

        // A later run, with nothing new in the log, still says it: the
        // certificate is kept in the state file until it expires.
        let later = try fleet.run(["check", "--config", fleet.configURL.path, "--state", state])
        XCTAssertEqual(later.status, 2, later.stdout)
        XCTAssertTrue(later.stdout.contains("android 5.2 has no pin on its chain"), later.stdout)

        // The release ships a pin for the sibling: what was kept is judged
        // again, and nothing alerts.
        try fleet.writeConfig(settings: try settings(more: [sibling]))
        let fixed = try snapshot(state: state)
        XCTAssertEqual(fixed["severity"] as? String, "ok", "\(fixed)")
        let kept = try XCTUnwrap(fixed["ct"] as? [[String: Any]], "\(fixed)")
        XCTAssertEqual(kept.map { $0["survives"] as? [String] ?? [] }, [["android 5.2"], ["android 5.2"]])
    }

    func testATamperedLogIsMisbehavingAndNothingItLogsCounts() throws {
        try fleet.writeConfig(settings: try settings())
        let state = fleet.directory.appendingPathComponent("state.sqlite").path
        _ = try snapshot(state: state)
        try logCertificate("api.test", under: sibling)
        try log.publish()
        log.tamper = .badSignature
        let tampered = try snapshot(state: state)
        XCTAssertEqual((tampered["ct"] as? [Any])?.count, 0, "\(tampered)")
        let alerts = tampered["alerts"] as? [String] ?? []
        XCTAssertTrue(alerts.contains("ct_log_misbehaving"), "\(tampered)")
        XCTAssertFalse(alerts.contains("next_leaf_logged"), "\(tampered)")
        XCTAssertTrue((tampered["reason"] as? String ?? "").contains("Local Log 1"), "\(tampered)")

        let metrics = try fleet.run(["snapshot", "--format", "prometheus", "--config", fleet.configURL.path, "--state", state])
        XCTAssertTrue(
            metrics.stdout.contains("pinwatch_ct_log_errors_total{log=\"Local Log 1\",reason=\"bad_signature\"} 1\n"), metrics.stdout)
        XCTAssertTrue(metrics.stdout.contains("pinwatch_ct_log_verified_size{log=\"Local Log 1\"} 1\n"), metrics.stdout)
        XCTAssertTrue(metrics.stdout.contains("alert=\"ct_log_misbehaving\"} 1"), metrics.stdout)
        XCTAssertFalse(metrics.stdout.contains("next_leaf_logged"), metrics.stdout)
        XCTAssertFalse(metrics.stdout.contains("pinwatch_ct_next_chain_survives{"), metrics.stdout)
    }

    /// `serve` with a hook: within a cycle of the log's publishing, the
    /// metrics and the hook say `next_leaf_logged` for the release that
    /// breaks, while the server still sends the old chain.
    func testServeAndAHookAnnounceTheLoggedCertificateBeforeItIsServed() throws {
        let out = fleet.directory.appendingPathComponent("hook.out")
        let hook = try fleet.write("#!/bin/sh\ncat >> \"$1\"\n", to: "hook.sh")
        try fleet.writeConfig(
            settings: try settings(["interval: 1s", "hooks:", "  - [/bin/sh, \(hook.path), \(out.path)]"]), timeout: "1s")
        let (port, process) = try startServeProcess()
        let metrics = { (try? LoopbackHTTP.get(port: port, "/metrics", timeout: 5).body) ?? "" }
        try waitUntil(timeout: 30, "the log was never followed: \(process.stderr)") {
            metrics().contains("pinwatch_ct_log_verified_size{log=\"Local Log 1\"} 1\n")
        }
        try logCertificate("api.test", under: sibling)
        try log.publish()
        try waitUntil(timeout: 30, "next_leaf_logged never raised: \(metrics())") {
            metrics().contains("alert=\"next_leaf_logged\"} 1")
        }
        let text = metrics()
        XCTAssertTrue(text.contains("pinwatch_ct_log_verified_size{log=\"Local Log 1\"} 2\n"), text)
        let survives = text.split(separator: "\n").filter { $0.hasPrefix("pinwatch_ct_next_chain_survives{") }
        XCTAssertEqual(survives.count, 1, text)
        XCTAssertTrue(survives.first?.contains("client=\"android 5.2\"") ?? false, text)
        XCTAssertTrue(survives.first?.contains("E2E Issuing CA 2") ?? false, text)
        XCTAssertTrue(survives.first?.hasSuffix("} 0") ?? false, text)
        try waitUntil(timeout: 20, "the hook was never told") {
            ((try? String(contentsOf: out, encoding: .utf8)) ?? "").contains("next_leaf_logged")
        }
        let event = (try? String(contentsOf: out, encoding: .utf8)) ?? ""
        XCTAssertTrue(event.contains("android 5.2"), event)
        // Still the old chain: the server's own verdict has not moved.
        XCTAssertTrue(
            text.contains("pinwatch_host_reason_info{host=\"api.test\",port=\"\(host.port)\",address=\"127.0.0.1\",status=\"ok\","), text)

        // The release ships a pin for the sibling; a reload judges the
        // logged certificate again and the alert clears.
        try fleet.writeConfig(
            settings: try settings(["interval: 1s", "hooks:", "  - [/bin/sh, \(hook.path), \(out.path)]"], more: [sibling]), timeout: "1s")
        process.signal(SIGHUP)
        try waitUntil(timeout: 30, "the reload never cleared next_leaf_logged: \(metrics())") {
            let now = metrics()
            return !now.contains("alert=\"next_leaf_logged\"")
                && now.split(separator: "\n").contains { $0.hasPrefix("pinwatch_ct_next_chain_survives{") && $0.hasSuffix("} 1") }
        }
    }

    /// The dashboard: the row's `ct` mark and the banner's NEXT LEAF LOGGED
    /// once the log publishes, the logged certificate and the release it
    /// breaks in the detail view.
    func testTheDashboardMarksTheRowAndListsTheLoggedCertificate() throws {
        let session = try watchFollowingTheLog(interval: "1s", rows: 100)
        defer { session.close() }
        try logCertificate("api.test", under: sibling)
        try log.publish()
        let marked = try session.waitForScreen(timeout: 30) { $0.contains("NEXT LEAF LOGGED") }
        XCTAssertTrue(marked.contains("ct a new certificate was logged"), marked)
        try session.send("Enter")
        let detail = try session.waitForScreen(timeout: 10) { $0.contains("certificate transparency") }
        XCTAssertTrue(detail.contains("under CN=E2E Issuing CA 2"), detail)
        XCTAssertTrue(detail.contains("breaks android 5.2"), detail)
        XCTAssertTrue(detail.contains("Local Log 1"), detail)
        try session.send("Q")
        XCTAssertEqual(try session.waitForExit(timeout: 10), 0)
    }

    /// `pinwatch ct`: what was logged for each host since the stored
    /// position, with its verdict per release, in text and JSON.
    func testTheCTCommandListsWhatWasLoggedWithItsVerdictPerRelease() throws {
        try fleet.writeConfig(settings: try settings())
        let state = fleet.directory.appendingPathComponent("state.sqlite").path
        let first = try fleet.run(["ct", "--config", fleet.configURL.path, "--state", state])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertTrue(first.stdout.contains("api.test:\(host.port): nothing logged"), first.stdout)
        XCTAssertTrue(first.stdout.contains("Local Log 1: verified to 1 entries"), first.stdout)

        try logCertificate("api.test", under: fleet.issuing)
        try logCertificate("api.test", under: sibling)
        try log.publish()
        let text = try fleet.run(["ct", "api.test", "--config", fleet.configURL.path, "--state", state])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains("api.test:\(host.port): 2 certificates logged"), text.stdout)
        XCTAssertTrue(text.stdout.contains("verdict breaks android 5.2"), text.stdout)
        XCTAssertTrue(text.stdout.contains("verdict survives android 5.2"), text.stdout)
        XCTAssertTrue(text.stdout.contains("issuer  CN=E2E Issuing CA 2"), text.stdout)
        XCTAssertTrue(text.stdout.contains("Local Log 1: verified to 3 entries"), text.stdout)

        try logCertificate("api.test", under: sibling)
        try log.publish()
        let json = try fleet.run(["ct", "--format", "json", "--config", fleet.configURL.path, "--state", state])
        XCTAssertEqual(json.status, 0, json.stderr)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], json.stdout)
        let hosts = try XCTUnwrap(object["hosts"] as? [[String: Any]])
        let logged = try XCTUnwrap(hosts.first?["ct"] as? [[String: Any]], json.stdout)
        XCTAssertEqual(logged.count, 3, "what earlier runs found is kept in the state file: \(json.stdout)")
        XCTAssertEqual(logged.map { $0["breaks"] as? [String] ?? [] }, [["android 5.2"], ["android 5.2"], []], "newest first")
        let logs = try XCTUnwrap(object["logs"] as? [[String: Any]])
        XCTAssertEqual(logs.first?["verified_size"] as? Int, 4)

        let unknown = try fleet.run(["ct", "nowhere.test", "--config", fleet.configURL.path, "--state", state])
        XCTAssertEqual(unknown.status, 2)
        XCTAssertTrue(unknown.stderr.contains("no configured host named \"nowhere.test\""), unknown.stderr)
    }

    /// A log that never answers holds up neither `serve`'s cycles (its
    /// step waits on a queue of its own) nor `check` past a probe's timeout.
    func testAStallingLogDelaysNeitherTheCyclesNorCheck() throws {
        log.tamper = .stall
        try fleet.writeConfig(settings: try settings(["interval: 1s"]), timeout: "1s")
        let (port, process) = try startServeProcess()
        let cycles = { () -> Int in
            let text = (try? LoopbackHTTP.get(port: port, "/metrics", timeout: 5).body) ?? ""
            let line = text.split(separator: "\n").first { $0.hasPrefix("pinwatch_cycles_total ") }
            return line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
        }
        // The client waits 30 s for a log's answer: three cycles in less
        // than that ran beside the stalled step.
        try waitUntil(timeout: 15, "cycles waited for the stalled log: \(process.stderr)") { cycles() >= 3 }

        let started = Date()
        let check = try fleet.run(["check", "--config", fleet.configURL.path, "--state", "off"], timeout: 30)
        XCTAssertEqual(check.status, 0, check.stdout + check.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(started), 15, "check waited for the stalled log")
    }

    /// `validate` reads the log list as `watch` and `serve` will: a list
    /// that would stop them is an error naming its path.
    func testValidateReadsTheLogList() throws {
        try fleet.writeConfig(settings: try settings())
        let valid = try fleet.run(["validate", "--config", fleet.configURL.path])
        XCTAssertEqual(valid.status, 0, valid.stderr)
        XCTAssertTrue(valid.stdout.contains("1 client, 1 Certificate Transparency log\n"), valid.stdout)
        // The copy built in is a list like any other, not a file of that name.
        try fleet.writeConfig(
            settings: try settings().map { $0 == "  logs: ct-logs.json" ? "  logs: built-in" : $0 })
        let builtIn = try fleet.run(["validate", "--config", fleet.configURL.path])
        XCTAssertEqual(builtIn.status, 0, builtIn.stderr)
        XCTAssertTrue(builtIn.stdout.contains("1 client, 50 Certificate Transparency logs\n"), builtIn.stdout)
        try fleet.writeConfig(settings: try settings())

        try fleet.write("{\"operators\": 3}", to: "ct-logs.json")
        let config = ["--config", fleet.configURL.path]
        for command in [
            ["validate"] + config, ["check", "--state", "off"] + config, ["snapshot", "--format", "json", "--state", "off"] + config,
        ] {
            let broken = try fleet.run(command)
            XCTAssertNotEqual(broken.status, 0, "\(command): \(broken.stdout)")
            XCTAssertTrue((broken.stdout + broken.stderr).contains("ct: logs: "), "\(command): \(broken.stdout)\(broken.stderr)")
            XCTAssertTrue((broken.stdout + broken.stderr).contains("not a v3 log list"), "\(command): \(broken.stdout)\(broken.stderr)")
        }
    }

    /// `search:` instead of logs: `pinwatch ct` asks the service for the
    /// host's name with the token from the environment, judges what it
    /// answers, and lists a refused token by the name it asked.
    func testTheCTCommandAsksTheConfiguredSearch() throws {
        let search = try LocalCTSearch(token: "s3cret")
        defer { search.stop() }
        let leaf = try sibling.issueLeaf(commonName: "api.test", dnsNames: ["api.test"])
        search.add(leaf.certificate, issuer: sibling.certificate)
        try fleet.writeConfig(
            settings: try settings().map { $0 == "  logs: ct-logs.json" ? "  search: \(search.url.absoluteString)" : $0 })
        let arguments = ["ct", "--format", "json", "--config", fleet.configURL.path, "--state", "off"]
        let answered = try fleet.run(arguments, environment: ["PINWATCH_CT_TOKEN": "s3cret"])
        XCTAssertEqual(answered.status, 0, answered.stderr)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(answered.stdout.utf8)) as? [String: Any])
        let hosts = try XCTUnwrap(json["hosts"] as? [[String: Any]])
        let logged = try XCTUnwrap(hosts.first?["ct"] as? [[String: Any]])
        XCTAssertEqual(logged.count, 1, answered.stdout)
        XCTAssertEqual(logged.first?["breaks"] as? [String], ["android 5.2"], answered.stdout)
        XCTAssertTrue(search.receivedQueries.contains { $0.contains("domain=api.test") }, "\(search.receivedQueries)")

        let refused = try fleet.run(arguments, environment: ["PINWATCH_CT_TOKEN": "wrong"])
        let refusedJSON = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(refused.stdout.utf8)) as? [String: Any])
        let logs = try XCTUnwrap(refusedJSON["logs"] as? [[String: Any]])
        XCTAssertEqual(logs.first?["log"] as? String, "search api.test", refused.stdout)
        XCTAssertFalse((logs.first?["errors"] as? [String: Any] ?? [:]).isEmpty, refused.stdout)
        let refusedHosts = try XCTUnwrap(refusedJSON["hosts"] as? [[String: Any]])
        XCTAssertEqual((refusedHosts.first?["ct"] as? [[String: Any]])?.count, 0, refused.stdout)
    }

    /// What CT logged for the watched names is evidence of a family's pool:
    /// `catalogue` lists the logged issuer under the family its chain hangs
    /// from, and says the declared pool lacks it.
    func testTheCatalogueListsTheIssuersCTShowed() throws {
        try fleet.write(fleet.root.certificate.pem, to: "e2e-root.pem")
        try fleet.write(fleet.issuing.certificate.pem, to: "e2e-issuing.pem")
        try fleet.writeConfig(
            settings: try settings() + [
                "catalogue:", "  - name: e2e", "    roots: [e2e-root.pem]", "    intermediates: [e2e-issuing.pem]",
            ])
        let state = fleet.directory.appendingPathComponent("state.sqlite").path
        _ = try snapshot(state: state)
        try logCertificate("api.test", under: sibling)
        try logCertificate("api.test", under: fleet.issuing)
        try log.publish()
        _ = try snapshot(state: state)

        let text = try fleet.run(["catalogue", "--config", fleet.configURL.path, "--state", state])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(
            text.stdout.contains("  observed:     CN=E2E Issuing CA 2,O=E2E Trust in CT ")
                && text.stdout.contains(" (not in the pool the data declares)\n"), text.stdout)
        let json = try fleet.run(["catalogue", "--format", "json", "--config", fleet.configURL.path, "--state", state])
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let families = try XCTUnwrap(object["families"] as? [[String: Any]])
        let family = try XCTUnwrap(families.first { $0["name"] as? String == "e2e" }, json.stdout)
        let observed = try XCTUnwrap(family["observed"] as? [[String: Any]])
        XCTAssertEqual(
            Set(observed.map { "\($0["subject"] as? String ?? "") \($0["in_pool"] as? Bool ?? false)" }),
            [
                "\(sibling.certificate.facts.subject) false", "\(fleet.issuing.certificate.facts.subject) true",
            ], json.stdout)
        // Without the store's records there is nothing to list.
        let none = try fleet.run(["catalogue", "--format", "json", "--config", fleet.configURL.path, "--state", "off"])
        XCTAssertFalse(none.stdout.contains("\"in_pool\""), none.stdout)
    }

    /// A family the catalogue knows by its roots only has no pool to judge
    /// a rotation on; the issuers CT showed under it become one: android
    /// 5.2, which pins one intermediate, is told a move to the sibling CT
    /// showed breaks it.
    func testIssuersCTShowedAreThePoolOfAFamilyKnownByItsRootsOnly() throws {
        try fleet.write(fleet.root.certificate.pem, to: "e2e-root.pem")
        try fleet.writeConfig(
            settings: try settings() + ["catalogue:", "  - name: e2e", "    roots: [e2e-root.pem]"])
        let state = fleet.directory.appendingPathComponent("state.sqlite").path
        func rotation(_ host: [String: Any]) -> (client: Any?, via: String?) {
            let client = (host["clients"] as? [[String: Any]])?.first?["survives"] as? [String: Any]
            let chain = (host["next_chains"] as? [[String: Any]])?.first { $0["scenario"] as? String == "intermediate_rotation" }
            return (client?["intermediate_rotation"], chain?["via"] as? String)
        }
        let before = rotation(try snapshot(state: state))
        XCTAssertTrue(before.client is NSNull, "no pool known: \(String(describing: before.client))")

        try logCertificate("api.test", under: sibling)
        try log.publish()
        let after = try snapshot(state: state)
        let judged = rotation(after)
        XCTAssertEqual(judged.client as? Bool, false, "\(after)")
        XCTAssertEqual(judged.via, "E2E Issuing CA 2 (seen in CT)", "\(after)")
    }

    /// A gap larger than a step's budget is read over several cycles, and
    /// the dashboard's footer says how far.
    func testTheDashboardSaysHowFarACatchUpHasRead() throws {
        let session = try watchFollowingTheLog(interval: "2s", rows: 40)
        defer { session.close() }
        let other = try fleet.issuing.issueLeaf(commonName: "other.test", dnsNames: ["other.test"])
        // README: at most 4,096 entries a log a step.
        let budget = 4_096
        let gap = budget + 100
        for _ in 0..<gap { log.add(certificate: other.certificate, chain: [fleet.issuing.certificate, fleet.root.certificate]) }
        try log.publish()
        let screen = try session.waitForScreen(timeout: 60) { $0.contains("Certificate Transparency catching up:") }
        XCTAssertTrue(screen.contains("Local Log 1 \(budget) of \(gap) new entries read"), screen)
        try session.send("Q")
        XCTAssertEqual(try session.waitForExit(timeout: 10), 0)
    }

    /// `watch` under tmux once api.test is ok and the log's start is set.
    private func watchFollowingTheLog(interval: String, rows: Int) throws -> TmuxSession {
        try fleet.writeConfig(settings: try settings(["interval: \(interval)"]), timeout: "1s")
        let invocation = [PinwatchBinary.url.path, "watch", "--config", fleet.configURL.path, "--no-bell", "--state", "off"]
            .map(TmuxSession.quote).joined(separator: " ")
        let session = try TmuxSession(command: invocation, columns: 160, rows: rows, environment: ["SWIFT_BACKTRACE": "interactive=no"])
        do {
            _ = try session.waitForScreen(timeout: 20) { $0.contains("api.test") && $0.contains("✓ ok") }
            // A step asks for the tree head again only once the one before
            // has ended: the second request means the log's start is set.
            try waitUntil(timeout: 20, "the log was never followed") { log.acceptedConnections >= 2 }
        } catch {
            session.close()
            throw error
        }
        return session
    }
}
