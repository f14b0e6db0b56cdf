import Foundation
import PinwatchCore
import PinwatchLocalWorld
import PinwatchProbe
import PinwatchTestSupport
import XCTest

/// DESIGN §12: `preflight` judges a chain that is not deployed yet.
///
/// The fleet's root issues from a pool of five intermediates. api.test is
/// configured with the root pinned; app 2.0 pins the root too, app 1.9 only
/// the first pool intermediate (the one serving today). Nothing listens for
/// api.test and the proxy variables point at a closed port: a preflight that
/// dialled anything would fail.
final class PreflightEndToEndTests: LocalFleetTestCase {
    private var pool: [CertificateAuthority] = []
    private var config: URL!
    private var offline: [String: String] = [:]

    override func setUpWithError() throws {
        try super.setUpWithError()
        pool = try (1...5).map { try fleet.root.issueIntermediate(commonName: "E2E Pool CA \($0)") }
        let closed = try LocalPorts.closedPort()
        offline = ["https_proxy": "http://127.0.0.1:\(closed)", "HTTPS_PROXY": "http://127.0.0.1:\(closed)"]
        let rootPin = LocalFleet.pin(fleet.root.certificate)
        fleet.add(LocalFleet.Host(name: "api.test", port: try LocalPorts.closedPort(), ca: [rootPin]))
        let backup = String(try LocalFleet.unrelatedPin().dropFirst("sha256/".count))
        let trustKit = { (pin: String) in
            """
            {"TSKPinnedDomains": {"api.test": {"TSKPublicKeyHashes": ["\(pin.dropFirst("sha256/".count))", "\(backup)"]}}}
            """
        }
        try fleet.write(trustKit(rootPin), to: "app-2.0.json")
        try fleet.write(trustKit(LocalFleet.pin(pool[0].certificate)), to: "app-1.9.json")
        config = try fleet.writeConfig(settings: [
            "clients:", "  - name: app 2.0", "    trustkit: app-2.0.json", "  - name: app 1.9", "    trustkit: app-1.9.json",
        ])
    }

    /// A leaf for `name` under `issuer`, as the server would send it: leaf, then the intermediate.
    private func candidate(_ name: String = "api.test", under issuer: CertificateAuthority, file: String) throws -> URL {
        let leaf = try issuer.issueLeaf(commonName: name, dnsNames: [name])
        return try fleet.write(leaf.certificate.pem + issuer.certificate.pem, to: file)
    }

    private func preflight(_ chain: String, _ extra: [String] = [], host: String = "api.test") throws -> PinwatchBinary.Outcome {
        try fleet.run(["preflight", host, "--chain", chain, "--config", config.path] + extra, environment: offline)
    }

    func testASiblingIntermediateBreaksTheReleasePinnedToTheOldOne() throws {
        let sibling = try candidate(under: pool[2], file: "sibling.pem")
        let outcome = try preflight(sibling.path)
        XCTAssertEqual(outcome.status, 2, "a release refuses the chain:\n\(outcome.stdout)\(outcome.stderr)")
        XCTAssertTrue(outcome.stdout.contains("BREAKS app 1.9"), outcome.stdout)
        XCTAssertFalse(outcome.stdout.contains("BREAKS app 2.0"), outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("✗ client app 1.9: blocked"), outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("✓ client app 2.0: ok"), outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("✓ configured pins: ok"), outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("CN=E2E Pool CA 3"), "the candidate's levels are listed: \(outcome.stdout)")

        let json = try preflight(sibling.path, ["--format", "json"])
        XCTAssertEqual(json.status, 2, json.stderr)
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let summary = try XCTUnwrap(document["preflight"] as? [String: Any])
        XCTAssertEqual(summary["breaks"] as? [String], ["app 1.9"])
        XCTAssertEqual(summary["outcome"] as? String, "refuses")
        let host = try XCTUnwrap(document["host"] as? [String: Any])
        XCTAssertEqual(host["host"] as? String, "api.test")
        XCTAssertEqual(host["trusted"] as? Bool, true)
        let clients = try XCTUnwrap(host["clients"] as? [[String: Any]])
        let statuses = Dictionary(uniqueKeysWithValues: clients.map { ($0["client"] as! String, $0["status"] as! String) })
        XCTAssertEqual(statuses, ["app 2.0": "ok", "app 1.9": "blocked"])
        XCTAssertEqual((host["chain"] as? [[String: Any]])?.count, 3, "leaf, pool intermediate and the root from the store")
    }

    /// With the pool declared in `catalogue:`, the text names what the
    /// candidate's next chains do to each pin, and the stanza adds the root.
    func testTheTextShowsTheCandidatesNextChainsWhenThePoolIsKnown() throws {
        try fleet.write(fleet.root.certificate.pem, to: "pool-root.pem")
        for (index, authority) in pool.enumerated() { try fleet.write(authority.certificate.pem, to: "pool-\(index).pem") }
        let files = pool.indices.map { "pool-\($0).pem" }.joined(separator: ", ")
        fleet.add(LocalFleet.Host(name: "pooled.test", port: try LocalPorts.closedPort(), ca: [LocalFleet.pin(pool[0].certificate)]))
        config = try fleet.writeConfig(settings: [
            "catalogue:", "  - name: e2e", "    roots: [pool-root.pem]", "    intermediates: [\(files)]",
        ])
        let same = try candidate("pooled.test", under: pool[0], file: "pooled.pem")
        let outcome = try preflight(same.path, host: "pooled.test")
        XCTAssertEqual(outcome.status, 1, "accepted today, with the pool's warning:\n\(outcome.stdout)\(outcome.stderr)")
        XCTAssertTrue(outcome.stdout.contains("next chains for the host's configured pins (e2e):"), outcome.stdout)
        XCTAssertEqual(outcome.stdout.components(separatedBy: "intermediate rotation").count - 1, 4, outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("recommended: "), outcome.stdout)
        let stanza = try preflight(same.path, ["--format", "stanza"], host: "pooled.test")
        XCTAssertTrue(
            stanza.stdout.contains(LocalFleet.pin(fleet.root.certificate)), "the stanza adds the recommended root:\n\(stanza.stdout)")
    }

    func testTheOldIntermediateIsAcceptedByEveryRelease() throws {
        let same = try candidate(under: pool[0], file: "same.pem")
        let outcome = try preflight(same.path)
        XCTAssertEqual(outcome.status, 0, "\(outcome.stdout)\(outcome.stderr)")
        XCTAssertTrue(outcome.stdout.contains("ACCEPTED by every pinned client"), outcome.stdout)

        // Standard input, as a runbook pipes the CA's download in.
        let piped = try PinwatchBinary.runShell(
            "\(PinwatchBinary.url.path) preflight api.test --chain - --config \(config.path) --format stanza < \(same.path)",
            currentDirectory: fleet.directory)
        XCTAssertEqual(piped.status, 0, piped.stderr)
        XCTAssertTrue(piped.stdout.hasPrefix("hosts:\n  - host: api.test"), piped.stdout)
        XCTAssertTrue(piped.stdout.contains(LocalFleet.pin(pool[0].certificate)), piped.stdout)
    }

    /// A precertificate, as Certificate Transparency logs it before the
    /// certificate is issued, is judged as the certificate it announces:
    /// its poison extension, which OpenSSL refuses, does not make it
    /// untrusted.
    func testAPrecertificateIsJudgedAsTheCertificateItAnnounces() throws {
        for (issuer, breaks) in [(pool[0], nil), (pool[2], "app 1.9")] {
            let precertificate = try issuer.issueLeaf(commonName: "api.test", dnsNames: ["api.test"], precertificate: true)
            let file = try fleet.write(precertificate.certificate.pem + issuer.certificate.pem, to: "precertificate.pem")
            let outcome = try preflight(file.path)
            XCTAssertFalse(outcome.stdout.contains("NOT trusted"), outcome.stdout)
            if let breaks {
                XCTAssertEqual(outcome.status, 2, "\(outcome.stdout)\(outcome.stderr)")
                XCTAssertTrue(outcome.stdout.contains("BREAKS \(breaks)"), outcome.stdout)
                XCTAssertTrue(outcome.stdout.contains("✓ client app 2.0: ok"), outcome.stdout)
            } else {
                XCTAssertEqual(outcome.status, 0, "\(outcome.stdout)\(outcome.stderr)")
                XCTAssertTrue(outcome.stdout.contains("ACCEPTED by every pinned client"), outcome.stdout)
            }
        }
    }

    func testAChainThatExpiresSoonSurvivesWithWarnings() throws {
        let leaf = try pool[0].issueLeaf(
            commonName: "api.test", dnsNames: ["api.test"], validity: .ending(inDays: 10, issuedDaysAgo: 80))
        let file = try fleet.write(leaf.certificate.pem + pool[0].certificate.pem, to: "short.pem")
        let outcome = try preflight(file.path)
        XCTAssertEqual(outcome.status, 1, "every client accepts it today, with a warning:\n\(outcome.stdout)\(outcome.stderr)")
        XCTAssertTrue(outcome.stdout.contains("SURVIVES WITH WARNINGS for configured pins, app 2.0, app 1.9"), outcome.stdout)
    }

    func testAnUntrustedChainIsRefusedEvenWhereAPinMatches() throws {
        let stranger = try CertificateAuthority.makeRoot(commonName: "Stranger Root")
        let leaf = try stranger.issueLeaf(commonName: "api.test", dnsNames: ["api.test"])
        let file = try fleet.write(leaf.certificate.pem, to: "stranger.pem")
        let outcome = try preflight(file.path)
        XCTAssertEqual(outcome.status, 2, outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("NOT trusted"), outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("BREAKS configured pins, app 2.0, app 1.9"), outcome.stdout)
    }

    func testAHostNotConfiguredIsJudgedWithoutPinsAndSaysSo() throws {
        let chain = try candidate("new.test", under: pool[1], file: "new.pem")
        let outcome = try preflight(chain.path, host: "new.test")
        XCTAssertEqual(outcome.status, 0, "\(outcome.stdout)\(outcome.stderr)")
        XCTAssertTrue(outcome.stdout.contains("new.test:443 is not in the configuration: judged with no pins of its own"), outcome.stdout)
        XCTAssertTrue(outcome.stdout.contains("ACCEPTED: trusted, and no client pins this host"), outcome.stdout)
    }

    /// A signed list would be downloaded when the configuration loads:
    /// preflight dials nothing, so the release is refused by name, or left
    /// out when the entry is optional.
    func testASignedListIsNotDownloaded() throws {
        let key = Data(try PrivateKey.ecdsa(.p256).uncompressedPoint).base64EncodedString()
        let listed = { (optional: Bool) in
            [
                "clients:", "  - name: web",
                "    dynamic_list: {url: \"https://127.0.0.1:\(try LocalPorts.closedPort())/pins.json\", public_key: \"\(key)\"}",
            ] + (optional ? ["    optional: true"] : [])
        }
        let chain = try candidate(under: pool[0], file: "same.pem")
        let required = try fleet.writeConfig(settings: try listed(false), name: "required.yaml")
        let refused = try fleet.run(["preflight", "api.test", "--chain", chain.path, "--config", required.path], environment: offline)
        XCTAssertEqual(refused.status, 2, refused.stdout)
        XCTAssertTrue(refused.stderr.contains("not downloaded: this command dials nothing"), refused.stderr)

        let optional = try fleet.writeConfig(settings: try listed(true), name: "optional.yaml")
        let judged = try fleet.run(["preflight", "api.test", "--chain", chain.path, "--config", optional.path], environment: offline)
        XCTAssertEqual(judged.status, 0, "\(judged.stdout)\(judged.stderr)")
        XCTAssertTrue(judged.stderr.contains("not downloaded"), "the left-out release is said: \(judged.stderr)")
        XCTAssertFalse(judged.stdout.contains("client web"), judged.stdout)
    }

    func testBadInputIsNamedAndNothingIsJudged() throws {
        let notPEM = try fleet.write("this is not a certificate\n", to: "notes.txt")
        let der = try fleet.write(pool[0].certificate.der, to: "intermediate.der")
        let empty = try fleet.write("", to: "empty.pem")
        let wrongName = try candidate("other.test", under: pool[0], file: "other.pem")
        let cases: [(URL, String)] = [
            (notPEM, "not a PEM bundle"), (der, "not a PEM bundle"), (empty, "empty"),
            (wrongName, "the first certificate (the leaf) does not name api.test"),
        ]
        for (file, message) in cases {
            let outcome = try preflight(file.path)
            XCTAssertEqual(outcome.status, 2, "\(file.lastPathComponent): \(outcome.stdout)\(outcome.stderr)")
            XCTAssertTrue(outcome.stderr.contains(message), "\(file.lastPathComponent): \(outcome.stderr)")
            XCTAssertEqual(outcome.stdout, "", "nothing judged for \(file.lastPathComponent)")
        }
        let missing = try preflight(fleet.directory.appendingPathComponent("missing.pem").path)
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("missing.pem"), missing.stderr)
    }
}
